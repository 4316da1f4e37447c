"""The progress bar of a cohort run."""
import sys


class Progress:
    """A progress bar: submissions done, failed, rate and time left (tqdm's)."""

    def __init__(self, total, show):
        self.failed = 0
        self.tqdm = None
        if show:
            from tqdm import tqdm
            tqdm.monitor_interval = 0  # no thread of its own: grading processes are forked
            self.tqdm = tqdm(total=total, unit="sub", file=sys.stderr, dynamic_ncols=True,
                             desc="grading")

    def done(self, outcome):
        self.failed += not outcome.ok
        if self.tqdm is not None:
            self.tqdm.set_postfix(failed=self.failed, refresh=False)
            self.tqdm.update(1)

    def close(self):
        if self.tqdm is not None:
            self.tqdm.close()
