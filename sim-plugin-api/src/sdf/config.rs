//! Parsing a sensor's or system's element from its configuration.

use super::document::SdfDocument;
use super::error::SdfError;
use super::origin::Origin;
use crate::plugin::{SensorConfig, SystemConfig};
use abi_stable::std_types::RStr;

/// The typed SDF access of a configuration whose element is `$element` and whose owner (named
/// first in messages) is the field `$owner`.
macro_rules! sdf_access {
    ($config:ident, $owner:ident, $element:literal) => {
        impl<'a> $config<'a> {
            #[doc = concat!("Where the `", $element, "` element is, as an [`Origin`] naming its owner (`", stringify!($owner), "`).")]
            pub fn origin(&self) -> Origin<'a> {
                Origin {
                    owner: self.$owner.as_str(),
                    file: self.source.file.as_str(),
                    line: self.source.line,
                }
            }

            #[doc = concat!("The `", $element, "` element, parsed ([`SdfDocument::root`] is that element).")]
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
    };
}

sdf_access!(SensorConfig, scoped_name, "<sensor>");
sdf_access!(SystemConfig, name, "<plugin>");
