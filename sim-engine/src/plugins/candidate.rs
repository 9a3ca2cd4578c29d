//! A library found on the search path, opened only when a lookup needs it: what it serves
//! is first taken from the factory list in its file (see `listing`), and its code runs only
//! once a world (or `simcore plugins`) needs a factory it lists.

use super::library::{FactoryDesc, PluginLibrary, Refusal, open_library};
use super::listing::Listing;
use std::path::PathBuf;
use std::sync::OnceLock;

/// One library file that passed the checks made without opening it.
#[derive(Debug)]
pub(super) struct Candidate {
    /// Where it is.
    pub path: PathBuf,
    /// Its file name.
    pub file_name: String,
    /// The factories its file lists; None when it lists none (built before the list
    /// existed): it is then opened whenever a lookup reaches it.
    pub listed: Option<Vec<FactoryDesc>>,
    /// The suffixes of the default topics of the sensor types its file declares (none for
    /// a library built before they existed).
    pub topics: Vec<(String, String)>,
    /// The gz-sim systems its file says its sensors stand for (none for a library built
    /// before they existed).
    pub enablers: Vec<String>,
    opened: OnceLock<Result<PluginLibrary, Refusal>>,
}

impl Candidate {
    /// A library not opened yet.
    pub fn new(path: PathBuf, listing: Option<Listing>) -> Candidate {
        let file_name = path
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default();
        let (listed, topics, enablers) = match listing {
            Some(l) => (Some(l.factories), l.topics, l.enablers),
            None => (None, Vec::new(), Vec::new()),
        };
        Candidate {
            path,
            file_name,
            listed,
            topics,
            enablers,
            opened: OnceLock::new(),
        }
    }

    /// Whether it may have a factory for which `wanted` holds: one of its listed factories
    /// does, or it lists none (then only opening it tells).
    pub fn may_serve(&self, wanted: impl Fn(&FactoryDesc) -> bool) -> bool {
        match self.opened.get() {
            Some(Ok(library)) => library.factories.iter().any(wanted),
            Some(Err(_)) => false,
            None => self.listed.as_ref().is_none_or(|l| l.iter().any(wanted)),
        }
    }

    /// The library, opened on first use (running its code), or why it was refused.
    pub fn open(&self) -> Result<&PluginLibrary, &Refusal> {
        self.opened
            .get_or_init(|| open_library(&self.path, self.listed.as_deref()))
            .as_ref()
    }

    /// The library if it has been opened and loaded.
    pub fn loaded(&self) -> Option<&PluginLibrary> {
        self.opened.get().and_then(|r| r.as_ref().ok())
    }

    /// Why it was refused, if it has been opened and was.
    pub fn refusal(&self) -> Option<&Refusal> {
        self.opened.get().and_then(|r| r.as_ref().err())
    }
}
