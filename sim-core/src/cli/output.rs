//! The JSON lines `simcore run` writes on stdout (`--echo`, `--call` replies), written by a
//! thread of their own through a bounded queue, so that a slow reader never holds up a step
//! nor the reaction to Ctrl-C.
//!
//! A line that would take the queue past [`QUEUE_BYTES`] is dropped and counted (the summary
//! says how many). When stdout is closed (`| head -1`: the write fails with a broken pipe)
//! the writer stops, the queue is emptied and [`Output::closed`] turns true: the run ends as
//! if interrupted. Any other failed write (a full disk) ends the run the same way, and is an
//! error ([`Output::error`]) the run reports, with a status other than 0.

use std::collections::VecDeque;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

/// The most bytes of lines waiting to be written.
pub const QUEUE_BYTES: usize = 16 << 20;

#[derive(Default)]
struct Queue {
    lines: VecDeque<String>,
    bytes: usize,
    /// No more lines will come.
    finished: bool,
}

#[derive(Default)]
struct Shared {
    queue: Mutex<Queue>,
    /// Signalled when a line is queued, when the run finishes, and when the queue empties.
    changed: Condvar,
    closed: AtomicBool,
    /// Why a write failed, when it was not for a closed reader.
    error: Mutex<Option<String>>,
}

impl Shared {
    /// A write failed with `e`: stdout is done with.
    fn failed(&self, e: &std::io::Error) {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            let mut error = self.error.lock().unwrap_or_else(|e| e.into_inner());
            error.get_or_insert_with(|| e.to_string());
        }
        self.closed.store(true, Ordering::Relaxed);
    }
}

/// The stdout writer of a run.
pub struct Output {
    shared: Arc<Shared>,
    writer: Option<std::thread::JoinHandle<()>>,
    dropped: u64,
}

impl Output {
    /// Starts the writer thread on `out` (stdout).
    pub fn start(out: impl Write + Send + 'static) -> Output {
        let shared = Arc::new(Shared::default());
        let s = shared.clone();
        let writer = std::thread::Builder::new()
            .name("simcore-stdout".into())
            .spawn(move || write_lines(&s, out))
            .ok();
        if writer.is_none() {
            shared.closed.store(true, Ordering::Relaxed);
        }
        Output {
            shared,
            writer,
            dropped: 0,
        }
    }

    /// Queues one line (without its newline); dropped and counted when the queue is full or
    /// stdout is closed.
    pub fn line(&mut self, line: String) {
        if self.closed() {
            self.dropped += 1;
            return;
        }
        let mut q = lock(&self.shared.queue);
        if q.bytes + line.len() + 1 > QUEUE_BYTES {
            self.dropped += 1;
            return;
        }
        q.bytes += line.len() + 1;
        q.lines.push_back(line);
        drop(q);
        self.shared.changed.notify_all();
    }

    /// Whether stdout can no longer be written: closed by its reader, or a write failed
    /// ([`Output::error`]).
    pub fn closed(&self) -> bool {
        self.shared.closed.load(Ordering::Relaxed)
    }

    /// Why writing stdout failed, when it did for another reason than a closed reader (a
    /// full disk: `No space left on device`).
    pub fn error(&self) -> Option<String> {
        self.shared
            .error
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Waits until every queued line is written, stdout is closed, or `stop` is set (a
    /// signal): then the lines still queued are dropped and counted. Returns the lines
    /// dropped in all.
    pub fn finish(&mut self, stop: &AtomicBool) -> u64 {
        let mut q = lock(&self.shared.queue);
        q.finished = true;
        self.shared.changed.notify_all();
        while !q.lines.is_empty() && !self.closed() && !stop.load(Ordering::Relaxed) {
            // The signal handler cannot wake the condition variable: look at `stop` often.
            q = self
                .shared
                .changed
                .wait_timeout(q, Duration::from_millis(20))
                .map_or_else(|e| e.into_inner().0, |(q, _)| q);
        }
        self.dropped += q.lines.len() as u64;
        q.lines.clear();
        q.bytes = 0;
        let written = !self.closed() && !stop.load(Ordering::Relaxed);
        drop(q);
        if written && let Some(w) = self.writer.take() {
            // All lines are out; the writer only flushes and returns.
            let _ = w.join();
        }
        self.dropped
    }
}

fn lock(m: &Mutex<Queue>) -> std::sync::MutexGuard<'_, Queue> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The writer thread: writes queued lines, flushing whenever the queue runs empty, until the
/// run finishes or a write fails.
fn write_lines(s: &Shared, out: impl Write) {
    let mut out = std::io::BufWriter::new(out);
    loop {
        let mut q = lock(&s.queue);
        while q.lines.is_empty() && !q.finished {
            q = s.changed.wait(q).unwrap_or_else(|e| e.into_inner());
        }
        let Some(line) = q.lines.pop_front() else {
            // Finished and empty.
            drop(q);
            if let Err(e) = out.flush() {
                s.failed(&e);
            }
            s.changed.notify_all();
            return;
        };
        q.bytes -= line.len() + 1;
        let empty = q.lines.is_empty();
        drop(q);
        let ok = out
            .write_all(line.as_bytes())
            .and_then(|()| out.write_all(b"\n"))
            .and_then(|()| if empty { out.flush() } else { Ok(()) });
        if let Err(e) = ok {
            s.failed(&e);
            let mut q = lock(&s.queue);
            q.lines.clear();
            q.bytes = 0;
            drop(q);
            s.changed.notify_all();
            return;
        }
        if empty {
            s.changed.notify_all();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer that fails after `lines` newlines, as a pipe whose reader left.
    struct Closes {
        lines: usize,
        got: Arc<Mutex<Vec<u8>>>,
    }

    impl Write for Closes {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            if self.lines == 0 {
                return Err(std::io::ErrorKind::BrokenPipe.into());
            }
            let mut got = self.got.lock().unwrap();
            let mut consumed = 0;
            for &b in buf {
                got.push(b);
                consumed += 1;
                if b == b'\n' {
                    self.lines -= 1;
                    if self.lines == 0 {
                        break;
                    }
                }
            }
            Ok(consumed)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn every_line_is_written_in_order() {
        let got = Arc::new(Mutex::new(Vec::new()));
        let mut o = Output::start(Closes {
            lines: usize::MAX,
            got: got.clone(),
        });
        for i in 0..1000 {
            o.line(format!("{{\"n\":{i}}}"));
        }
        assert_eq!(o.finish(&AtomicBool::new(false)), 0);
        let text = String::from_utf8(got.lock().unwrap().clone()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 1000);
        assert_eq!(lines[999], "{\"n\":999}");
    }

    #[test]
    fn a_closed_stdout_is_noticed_and_later_lines_dropped() {
        let got = Arc::new(Mutex::new(Vec::new()));
        let mut o = Output::start(Closes {
            lines: 1,
            got: got.clone(),
        });
        o.line("first".into());
        o.line("second".into());
        let stop = AtomicBool::new(false);
        while !o.closed() {
            std::thread::sleep(Duration::from_millis(1));
        }
        o.line("third".into());
        let dropped = o.finish(&stop);
        assert!(dropped >= 1, "the line after the close is dropped");
        assert!(String::from_utf8_lossy(&got.lock().unwrap()).starts_with("first\n"));
    }

    #[test]
    fn a_failed_write_is_an_error_a_closed_reader_is_not() {
        struct Full;
        impl Write for Full {
            fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
                Err(std::io::Error::from_raw_os_error(28))
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Err(std::io::Error::from_raw_os_error(28))
            }
        }
        let mut o = Output::start(Full);
        o.line("lost".into());
        let dropped = o.finish(&AtomicBool::new(false));
        assert!(o.closed());
        let e = o.error().expect("an error");
        assert!(e.contains("No space left"), "{e}");
        assert!(dropped <= 1, "{dropped}");
        // A reader that left: closed, without an error.
        let mut o = Output::start(Closes {
            lines: 0,
            got: Arc::new(Mutex::new(Vec::new())),
        });
        o.line("x".into());
        o.finish(&AtomicBool::new(false));
        assert!(o.closed() && o.error().is_none());
    }

    #[test]
    fn a_full_queue_drops_lines_and_a_stop_ends_the_wait() {
        // A reader that never reads: the writer blocks on its first line.
        struct Stuck;
        impl Write for Stuck {
            fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
                std::thread::park();
                Err(std::io::ErrorKind::BrokenPipe.into())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let mut o = Output::start(Stuck);
        let line = "x".repeat(1 << 20);
        for _ in 0..40 {
            o.line(line.clone());
        }
        // 16 MiB hold 15 lines of 1 MiB (the rest is dropped), a stop ends the wait for
        // those: all are dropped but the one the writer may have begun.
        let stop = AtomicBool::new(true);
        let dropped = o.finish(&stop);
        assert!((39..=40).contains(&dropped), "{dropped}");
    }
}
