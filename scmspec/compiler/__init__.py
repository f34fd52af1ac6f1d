"""The compiler: text -> load -> validate -> resolve -> check_units -> lower."""
