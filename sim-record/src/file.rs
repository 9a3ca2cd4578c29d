//! The MCAP file: ROS 2 profile, zstd chunks, one channel per topic and encoding.

use super::encoded::{Encoded, Form};
use mcap::records::MessageHeader;
use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The open file and the channels created so far.
pub(super) struct FileSink {
    path: PathBuf,
    writer: mcap::Writer<BufWriter<File>>,
    channels: HashMap<(Arc<str>, Form), u16>,
    schemas: HashMap<String, u16>,
}

impl FileSink {
    /// Creates `path` with the ROS 2 profile and writes `metadata` (one record, `simcore`).
    /// The file is created as [`sim_files::create`] does: never through a symbolic link.
    pub fn create(path: &Path, metadata: BTreeMap<String, String>) -> Result<FileSink, String> {
        let file = sim_files::create(path).map_err(|e| e.to_string())?;
        let mut writer = mcap::WriteOptions::new()
            .profile("ros2")
            .compression(Some(mcap::Compression::Zstd))
            .compression_threads(0)
            .library(concat!("simcore ", env!("CARGO_PKG_VERSION")))
            .create(BufWriter::new(file))
            .map_err(|e| e.to_string())?;
        writer
            .write_metadata(&mcap::records::Metadata {
                name: "simcore".into(),
                metadata,
            })
            .map_err(|e| e.to_string())?;
        Ok(FileSink {
            path: path.to_path_buf(),
            writer,
            channels: HashMap::new(),
            schemas: HashMap::new(),
        })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes one message (creating its channel and schema on first use).
    pub fn write(&mut self, e: &Encoded<'_>) -> Result<(), mcap::McapError> {
        let channel = self.channel(e)?;
        let time = e.time();
        self.writer.write_to_known_channel(
            &MessageHeader {
                channel_id: channel,
                sequence: e.seq as u32,
                log_time: time,
                publish_time: time,
            },
            e.data,
        )
    }

    fn channel(&mut self, e: &Encoded<'_>) -> Result<u16, mcap::McapError> {
        let key = (e.topic.clone(), e.form.clone());
        if let Some(id) = self.channels.get(&key) {
            return Ok(*id);
        }
        let (name, schema_encoding, text, encoding) = e.schema();
        let schema = match self.schemas.get(&name) {
            Some(id) => *id,
            None => {
                let id = self.writer.add_schema(&name, schema_encoding, text)?;
                self.schemas.insert(name, id);
                id
            }
        };
        let id = self
            .writer
            .add_channel(schema, &e.topic, &encoding, &e.channel_metadata())?;
        self.channels.insert(key, id);
        Ok(id)
    }

    /// Writes the summary section and flushes the file.
    pub fn finish(mut self) -> Result<(), String> {
        self.writer.finish().map_err(|e| e.to_string())?;
        let mut out = self.writer.into_inner();
        std::io::Write::flush(&mut out).map_err(|e| e.to_string())
    }
}
