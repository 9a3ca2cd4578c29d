//! The run control: whether a run plays, is paused, is stopped or quits, the steps a paused
//! run was asked to take, and resets. Every front end (the Zenoh services, the command line,
//! an in-process caller) translates its requests to a [`RunControl`] call and its
//! [`ControlError`]s to its own replies; the checks are made here once.
//!
//! [`Simulation::run`] obeys it: a playing run steps (paced); a paused run waits for a
//! [`RunWaker`] signal (or its stop flag) and steps only what [`RunControl::step`] granted;
//! a quitting run ends.

use super::{LoadError, Simulation};
use crossbeam_channel::{Receiver, Sender, bounded};
use std::time::Duration;

/// The state of a run, as ROS 2's `simulation_interfaces` names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RunState {
    /// Reset to the world as loaded and paused, not stepped since.
    Stopped,
    /// Stepping (paced by the run's real-time factor).
    Playing,
    /// Waiting; steps only what [`RunControl::step`] grants.
    Paused,
    /// Ending: the run stops before its next step.
    Quitting,
}

impl RunState {
    /// Its name in lower case (`stopped`, `playing`, `paused`, `quitting`).
    pub fn name(self) -> &'static str {
        match self {
            RunState::Stopped => "stopped",
            RunState::Playing => "playing",
            RunState::Paused => "paused",
            RunState::Quitting => "quitting",
        }
    }
}

impl std::fmt::Display for RunState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// What a reset takes back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResetScope {
    /// Everything: time, every pose and velocity, the spawned models, every sensor and
    /// plugin, as if the run were launched again ([`Simulation::reset`]).
    All,
    /// Only the models spawned at run time are removed ([`Simulation::remove_spawned`]);
    /// time and the loaded models' state stay.
    Spawned,
}

/// What a reset did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ResetDone {
    /// The whole world starts again.
    All,
    /// These spawned models were removed.
    Spawned(Vec<String>),
}

/// Why a control request was refused.
#[derive(Debug, thiserror::Error)]
pub enum ControlError {
    /// The run is in that state already.
    #[error("already in that state")]
    AlreadyInState(RunState),
    /// Steps granted by an earlier [`RunControl::step`] are still being taken.
    #[error("the simulation is still taking the steps of an earlier call")]
    Busy,
    /// Steps are granted only to a paused run.
    #[error("the simulation is not paused (pause it first)")]
    NotPaused,
    /// The run is quitting: nothing more is done.
    #[error("the simulation is quitting")]
    Quitting,
    /// The world could not be built again (a plugin refused); the run is left as it was.
    #[error(transparent)]
    Reset(#[from] LoadError),
}

/// The state machine of a run: its [`RunState`] and the steps granted to it while paused.
#[derive(Clone, Debug, Default)]
pub struct RunControl {
    paused: bool,
    stopped: bool,
    quitting: bool,
    budget: u64,
    grant_finished: bool,
}

impl RunControl {
    /// A playing run.
    pub fn new() -> RunControl {
        RunControl::default()
    }

    /// The run's state.
    pub fn state(&self) -> RunState {
        if self.quitting {
            RunState::Quitting
        } else if self.stopped {
            RunState::Stopped
        } else if self.paused {
            RunState::Paused
        } else {
            RunState::Playing
        }
    }

    /// Whether the run may take its next step: it plays, or steps were granted.
    pub fn may_step(&self) -> bool {
        !self.quitting && (!self.paused || self.budget > 0)
    }

    /// Whether the run is quitting.
    pub fn quitting(&self) -> bool {
        self.quitting
    }

    /// Steps granted and not taken yet.
    pub fn steps_left(&self) -> u64 {
        self.budget
    }

    /// Whether the step just taken was the last one granted (true from
    /// [`RunControl::took_step`] until the next step).
    pub fn grant_finished(&self) -> bool {
        self.grant_finished
    }

    fn idle(&self) -> Result<RunState, ControlError> {
        if self.quitting {
            Err(ControlError::Quitting)
        } else if self.budget > 0 {
            Err(ControlError::Busy)
        } else {
            Ok(self.state())
        }
    }

    /// Plays (from paused or stopped).
    pub fn play(&mut self) -> Result<(), ControlError> {
        self.go(RunState::Playing)
    }

    /// Pauses (from playing or stopped).
    pub fn pause(&mut self) -> Result<(), ControlError> {
        self.go(RunState::Paused)
    }

    /// Ends the run before its next step, steps granted and not taken yet included (so that
    /// a grant of more steps than anyone wants to wait for never holds a run that cannot be
    /// ended).
    pub fn quit(&mut self) -> Result<(), ControlError> {
        self.go(RunState::Quitting)
    }

    /// Goes to `to`; [`RunState::Stopped`] resets the whole world first, so it is taken by
    /// [`Simulation::set_run_state`] alone.
    fn go(&mut self, to: RunState) -> Result<(), ControlError> {
        let now = match to {
            RunState::Quitting if self.quitting => return Err(ControlError::Quitting),
            RunState::Quitting => self.state(),
            _ => self.idle()?,
        };
        if now == to {
            return Err(ControlError::AlreadyInState(now));
        }
        match to {
            RunState::Playing => (self.paused, self.stopped) = (false, false),
            RunState::Paused => (self.paused, self.stopped) = (true, false),
            RunState::Stopped => (self.paused, self.stopped) = (true, true),
            RunState::Quitting => {
                (self.paused, self.stopped, self.quitting) = (false, false, true);
                self.budget = 0;
            }
        }
        Ok(())
    }

    /// Grants a paused run `n` steps; `Ok(true)` when they are all taken already (`n` is 0),
    /// else [`RunControl::grant_finished`] says when the last is.
    pub fn step(&mut self, n: u64) -> Result<bool, ControlError> {
        if self.quitting {
            return Err(ControlError::Quitting);
        }
        if !self.paused {
            return Err(ControlError::NotPaused);
        }
        if self.budget > 0 {
            return Err(ControlError::Busy);
        }
        self.budget = n;
        self.grant_finished = false;
        Ok(n == 0)
    }

    /// Called after each step the run takes: counts a granted step.
    pub fn took_step(&mut self) {
        self.grant_finished = false;
        if self.budget > 0 {
            self.stopped = false;
            self.budget -= 1;
            self.grant_finished = self.budget == 0;
        }
    }
}

impl Simulation {
    /// Goes to `to` (SetSimulationState): [`RunState::Stopped`] resets the whole world and
    /// pauses it.
    pub fn set_run_state(&mut self, to: RunState) -> Result<(), ControlError> {
        if to == RunState::Stopped {
            let now = self.control.idle()?;
            if now == to {
                return Err(ControlError::AlreadyInState(now));
            }
            self.reset()?;
        }
        self.control.go(to)
    }

    /// Resets `scope` of the world (refused while granted steps are being taken).
    pub fn reset_scope(&mut self, scope: ResetScope) -> Result<ResetDone, ControlError> {
        self.control.idle()?;
        match scope {
            ResetScope::All => {
                self.reset()?;
                Ok(ResetDone::All)
            }
            ResetScope::Spawned => Ok(ResetDone::Spawned(self.remove_spawned())),
        }
    }
}

/// Wakes a paused run from another thread (a front end that queued a request for it, a
/// signal handler): cheap to clone, never blocks.
#[derive(Clone, Debug)]
pub struct RunWaker {
    tx: Sender<()>,
}

impl RunWaker {
    /// Wakes the run (a no-op when a wake-up is already pending).
    pub fn wake(&self) {
        let _ = self.tx.try_send(());
    }
}

/// The receiving end of [`RunWaker`]s, held by the run.
#[derive(Debug)]
pub(super) struct Alarm {
    rx: Receiver<()>,
    tx: Sender<()>,
}

impl Alarm {
    pub(super) fn new() -> Alarm {
        let (tx, rx) = bounded(1);
        Alarm { rx, tx }
    }

    pub(super) fn waker(&self) -> RunWaker {
        RunWaker {
            tx: self.tx.clone(),
        }
    }

    /// Waits for a wake-up, at most `timeout`.
    pub(super) fn wait(&self, timeout: Duration) {
        let _ = self.rx.recv_timeout(timeout);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_paused_run_takes_exactly_the_steps_granted() {
        let mut c = RunControl::new();
        assert_eq!(c.state(), RunState::Playing);
        assert!(matches!(c.step(3), Err(ControlError::NotPaused)));
        c.pause().unwrap();
        assert!(!c.may_step());
        assert!(matches!(c.pause(), Err(ControlError::AlreadyInState(_))));
        assert!(!c.step(2).unwrap());
        assert!(matches!(c.step(1), Err(ControlError::Busy)));
        assert!(matches!(c.play(), Err(ControlError::Busy)));
        assert!(c.may_step());
        c.took_step();
        assert!(!c.grant_finished());
        c.took_step();
        assert!(c.grant_finished() && !c.may_step());
        c.took_step();
        assert!(!c.grant_finished());
        assert!(c.step(0).unwrap());
        c.quit().unwrap();
        assert!(!c.may_step() && c.state() == RunState::Quitting);
        assert!(matches!(c.play(), Err(ControlError::Quitting)));
        assert!(matches!(c.quit(), Err(ControlError::Quitting)));
    }

    #[test]
    fn quitting_ends_steps_being_taken() {
        let mut c = RunControl::new();
        c.pause().unwrap();
        assert!(!c.step(u64::MAX).unwrap());
        c.took_step();
        assert!(matches!(c.pause(), Err(ControlError::Busy)));
        c.quit().unwrap();
        assert_eq!(c.state(), RunState::Quitting);
        assert_eq!(c.steps_left(), 0);
        assert!(!c.may_step());
    }
}
