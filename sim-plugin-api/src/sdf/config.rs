//! Parsing a sensor's or system's element from its configuration.

use super::document::{Origin, SdfDocument};
use super::error::SdfError;
use crate::plugin::{SensorConfig, SystemConfig};
use abi_stable::std_types::RStr;

impl<'a> SensorConfig<'a> {
    /// Where the `<sensor>` element is, as an [`Origin`] naming the sensor by its scoped name.
    pub fn origin(&self) -> Origin<'a> {
        Origin {
            owner: self.scoped_name.as_str(),
            file: self.source.file.as_str(),
            line: self.source.line,
        }
    }

    /// The `<sensor>` element, parsed ([`SdfDocument::root`] is the `<sensor>` element).
    pub fn parse_sdf(&self) -> Result<SdfDocument<'a>, SdfError> {
        SdfDocument::parse(self.sdf.as_str(), self.origin())
    }

    /// The same configuration, its element at `line` of `file` (for tests of messages).
    pub fn with_source(mut self, file: &'a str, line: u32) -> Self {
        self.source.file = RStr::from_str(file);
        self.source.line = line;
        self
    }
}

impl<'a> SystemConfig<'a> {
    /// Where the `<plugin>` element is, as an [`Origin`] naming the plugin by its name.
    pub fn origin(&self) -> Origin<'a> {
        Origin {
            owner: self.name.as_str(),
            file: self.source.file.as_str(),
            line: self.source.line,
        }
    }

    /// The `<plugin>` element, parsed ([`SdfDocument::root`] is the `<plugin>` element).
    pub fn parse_sdf(&self) -> Result<SdfDocument<'a>, SdfError> {
        SdfDocument::parse(self.sdf.as_str(), self.origin())
    }

    /// The same configuration, its element at `line` of `file` (for tests of messages).
    pub fn with_source(mut self, file: &'a str, line: u32) -> Self {
        self.source.file = RStr::from_str(file);
        self.source.line = line;
        self
    }
}
