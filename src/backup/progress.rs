//! Progress bars for backups: one for the whole backup (files done), one for the
//! file being copied (pages). Drawn on stderr only when it is a terminal.

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

pub struct Progress {
    bars: MultiProgress,
    overall: ProgressBar,
}

impl Progress {
    /// Bars on stderr; nothing is drawn when stderr is not a terminal.
    pub fn on_terminal() -> Progress {
        Self::to(ProgressDrawTarget::stderr())
    }

    /// No bars at all: for the server's own backups.
    pub fn hidden() -> Progress {
        Self::to(ProgressDrawTarget::hidden())
    }

    fn to(target: ProgressDrawTarget) -> Progress {
        let bars = MultiProgress::with_draw_target(target);
        let overall = bars.add(ProgressBar::new(0));
        overall.set_style(
            ProgressStyle::with_template("{prefix:>12} [{bar:30}] {pos}/{len} files {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
        );
        Progress { bars, overall }
    }

    /// Starts the overall bar for `files` files under `label` ("backup", "verify").
    pub(super) fn begin(&self, label: &str, files: usize) {
        self.overall.set_prefix(label.to_string());
        self.overall.set_length(files as u64);
    }

    /// A bar for one file, in pages copied or bytes read.
    pub(super) fn file(&self, name: &str) -> ProgressBar {
        let bar = self.bars.add(ProgressBar::new(0));
        bar.set_style(
            ProgressStyle::with_template("{prefix:>12} [{bar:30}] {percent:>3}% {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
        );
        bar.set_prefix("");
        bar.set_message(name.to_string());
        bar
    }

    /// One more file done; its bar goes away.
    pub(super) fn file_done(&self, bar: ProgressBar) {
        bar.finish_and_clear();
        self.bars.remove(&bar);
        self.overall.inc(1);
    }

    pub(super) fn finish(&self) {
        self.overall.finish_and_clear();
    }
}
