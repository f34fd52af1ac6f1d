"""A command-line method for the tests: ``python sleepy_or_broken.py DATA META OUT``.

It reads the SCM id from META and misbehaves on purpose: on the id in $SLEEP_ON it starts a
grandchild ``sleep`` and sleeps past any test budget (writing both pids to $PID_DIR, so the
test can check the whole session was killed); on the id in $BREAK_ON it writes a malformed
file; on any other SCM it writes the empty adjacency (a valid answer).
"""

import csv
import json
import os
import subprocess
import sys
import time


def main() -> None:
    data, meta_path, out = sys.argv[1:4]
    meta = json.load(open(meta_path))
    if meta["id"] == os.environ.get("SLEEP_ON"):
        grandchild = subprocess.Popen(["sleep", "60"])
        tag = f"{meta['split']}-{meta['replicate']}"
        with open(os.path.join(os.environ["PID_DIR"], tag), "w") as fh:
            fh.write(f"{os.getpid()} {grandchild.pid}\n")
        time.sleep(60)
    elif meta["id"] == os.environ.get("BREAK_ON"):
        with open(out, "w") as fh:
            fh.write("this is,not\nan adjacency matrix\n")
    else:
        columns = meta["columns"]
        with open(out, "w", newline="") as fh:
            writer = csv.writer(fh)
            writer.writerow(["", *columns])
            for c in columns:
                writer.writerow([c, *([0] * len(columns))])


if __name__ == "__main__":  # pytest imports this file when it collects doctests
    main()
