import sys
import time

STARTED = time.monotonic()  # before the imports below, which take seconds on a busy machine: progress times from here

from pipeline.cli import main  # noqa: E402

sys.exit(main(started=STARTED))
