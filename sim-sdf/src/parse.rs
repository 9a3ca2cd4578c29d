//! Reading a document's text: the file's text ([`read_text`]), the XML parsed leniently
//! ([`with_document`]), the `<sdf version>` root checked ([`root_reader`]), and every problem
//! of a document reported together ([`with_problems`]).

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::error::{self, ErrorKind, SdfError};
use super::lenient;
use super::load::Loader;
use super::reader::{MAX_MODEL_DEPTH, Reader, children, is_sdf_element, tag};
use super::version::Version;
use sim_world::input::{Limits, ReadError};

/// The text of the file at `path` (a regular file of at most `limits.max_sdf_bytes`, see
/// [`sim_world::input::read_regular`]): an [`ErrorKind::Io`] error when it cannot be read
/// (without a position) or is not UTF-8 (at the first bad byte; its text is quoted only when
/// it looks like XML, see [`sim_world::input::quotable`]).
pub(crate) fn read_text(path: &Path, limits: &Limits) -> Result<String, SdfError> {
    let bytes = sim_world::input::read_regular(path, limits.max_sdf_bytes).map_err(|e| {
        SdfError::without_position(
            ErrorKind::Io,
            Some(path.to_path_buf()),
            format!("cannot read the file: {e}"),
            match e {
                ReadError::TooLarge { .. } => {
                    "raise the limit (--max-file-size, LoadOptions::limits.max_sdf_bytes) if the file is meant to be this large"
                }
                _ => "check the path and that the file is a readable regular file",
            },
        )
    })?;
    match String::from_utf8(bytes) {
        Ok(t) => Ok(t),
        Err(e) => {
            let valid = e.utf8_error().valid_up_to();
            let bytes = e.into_bytes();
            let good = String::from_utf8_lossy(&bytes[..valid]).into_owned();
            let (line, column) = error::line_col(&good, valid);
            let mut err = SdfError::without_position(
                ErrorKind::Io,
                Some(path.to_path_buf()),
                "the file is not valid UTF-8",
                "save the file as UTF-8 (SDF files are XML text)",
            );
            err.line = line;
            err.column = column;
            let text = String::from_utf8_lossy(&bytes).into_owned();
            err.source_text = sim_world::input::quotable(&text).then(|| Arc::new(text));
            Err(err)
        }
    }
}

/// Parses `text` as XML leniently (see `lenient`) and hands the document to `read`.
pub(crate) fn with_document<T>(
    text: &str,
    file: Option<&Path>,
    read: impl Fn(&roxmltree::Document, Option<Arc<PathBuf>>) -> Result<T, SdfError>,
) -> Result<T, SdfError> {
    let file = file.map(|f| Arc::new(f.to_path_buf()));
    let mut prepared = lenient::normalise(text);
    // A prefix declared somewhere but not in scope where it is used is dropped, one at a time.
    for _ in 0..16 {
        let prefix = match parse_xml(&prepared) {
            Ok(doc) => {
                nesting(&doc, text, &file)?;
                return read(&doc, file);
            }
            Err(roxmltree::Error::UnknownNamespace(prefix, _)) => prefix,
            Err(e) => return Err(xml_error(&e, text, file)),
        };
        prepared = Cow::Owned(lenient::drop_prefix(&prepared, &prefix));
    }
    match parse_xml(&prepared) {
        Ok(doc) => {
            nesting(&doc, text, &file)?;
            read(&doc, file)
        }
        Err(e) => Err(xml_error(&e, text, file)),
    }
}

/// The deepest nesting of elements a file may have: far more than a world needs (models nest
/// at most [`MAX_MODEL_DEPTH`] deep). It is checked in one pass before anything else reads the
/// document, so that no pass over it (some look at each element's ancestors) meets a deeper
/// one: 20,000 nested models took minutes before the model limit refused them.
pub(crate) const MAX_ELEMENT_DEPTH: usize = 256;

/// Refuses a document whose elements nest deeper than [`MAX_ELEMENT_DEPTH`], at the first
/// element past it, in time linear in its size.
fn nesting(
    doc: &roxmltree::Document,
    text: &str,
    file: &Option<Arc<PathBuf>>,
) -> Result<(), SdfError> {
    let mut stack = vec![(doc.root_element(), 1usize)];
    while let Some((node, depth)) = stack.pop() {
        if depth > MAX_ELEMENT_DEPTH {
            let pos = doc.text_pos_at(node.range().start);
            return Err(SdfError {
                kind: ErrorKind::Invalid,
                file: file.as_deref().cloned(),
                line: pos.row,
                column: pos.col,
                element: format!("<{}>", tag(node)),
                message: format!(
                    "elements are nested more than {MAX_ELEMENT_DEPTH} deep here (the nesting \
                     limit; models nest at most {MAX_MODEL_DEPTH} deep)"
                ),
                hint: "flatten the hierarchy: nest models through <include> or side by side"
                    .to_string(),
                source_text: sim_world::input::quotable(text).then(|| Arc::new(text.to_string())),
                included_from: Box::default(),
                others: Box::default(),
            });
        }
        stack.extend(
            node.children()
                .filter(|c| c.is_element())
                .map(|c| (c, depth + 1)),
        );
    }
    Ok(())
}

/// Parses XML (no DTDs: SDF does not use them, and they open the door to entity expansion).
pub(super) fn parse_xml(text: &str) -> Result<roxmltree::Document<'_>, roxmltree::Error> {
    let options = roxmltree::ParsingOptions {
        allow_dtd: false,
        ..Default::default()
    };
    roxmltree::Document::parse_with_options(text, options)
}

/// The error for text that is not well-formed XML.
fn xml_error(e: &roxmltree::Error, text: &str, file: Option<Arc<PathBuf>>) -> SdfError {
    let pos = e.pos();
    let full = e.to_string();
    let message = full
        .strip_suffix(&format!(" at {pos}"))
        .unwrap_or(&full)
        .to_string();
    let (line, column) = match e {
        roxmltree::Error::UnclosedRootNode | roxmltree::Error::UnexpectedEndOfStream => {
            error::line_col(text, text.trim_end().len())
        }
        roxmltree::Error::DtdDetected => error::line_col(text, text.find("<!DOCTYPE").unwrap_or(0)),
        _ => (pos.row.max(1), pos.col.max(1)),
    };
    let hint = match e {
        roxmltree::Error::UnclosedRootNode | roxmltree::Error::UnexpectedEndOfStream => {
            "the file ends before the root element is closed: add the missing closing tags"
        }
        roxmltree::Error::UnknownToken(_) => {
            "check for text after the closing </sdf> tag, a second root element or a stray `<`"
        }
        roxmltree::Error::UnexpectedCloseTag(..) => {
            "every opening tag needs a matching closing tag"
        }
        roxmltree::Error::NoRootNode => "the file must contain an <sdf version=\"...\"> element",
        roxmltree::Error::DtdDetected => {
            "remove the <!DOCTYPE> declaration: SDF files do not use one"
        }
        _ => "fix the XML syntax at this position",
    };
    SdfError {
        kind: ErrorKind::Xml,
        file: file.as_deref().cloned(),
        line,
        column,
        element: String::new(),
        message: format!("not well-formed XML: {message}"),
        hint: hint.to_string(),
        // A file that is not XML at all (a binary, `/proc/self/environ`) is never quoted.
        source_text: sim_world::input::quotable(text).then(|| Arc::new(text.to_string())),
        included_from: Box::default(),
        others: Box::default(),
    }
}

/// Checks the `<sdf version>` root and returns a reader for that version.
pub(crate) fn root_reader<'s>(
    root: roxmltree::Node,
    source: &'s str,
    file: Option<Arc<PathBuf>>,
    loader: &'s Loader,
) -> Result<Reader<'s>, SdfError> {
    // A provisional reader for errors before the version is known.
    let mut r = Reader::new(file, source, Version::NEWEST, loader);
    if tag(root) != "sdf" || !is_sdf_element(root) {
        let hint = if tag(root) == "gazebo" {
            "this is a pre-SDF Gazebo file: convert it to SDFormat (root <sdf version=\"1.12\">)"
        } else {
            "an SDF file starts with <sdf version=\"1.12\"> and ends with </sdf>"
        };
        return Err(r.error(
            root,
            ErrorKind::Invalid,
            format!(
                "the root element must be <sdf>, found <{}>",
                root.tag_name().name()
            ),
            hint,
        ));
    }
    let supported = format!(
        "simcore reads SDFormat {} to {}",
        Version::OLDEST,
        Version::NEWEST
    );
    r.version = match root.attribute("version") {
        None => {
            return Err(r.error(
                root,
                ErrorKind::Version,
                "<sdf> has no `version` attribute",
                format!("add the version the file is written for, e.g. <sdf version=\"1.12\"> ({supported})"),
            ));
        }
        Some(v) => match Version::parse(v) {
            Some(version) if version.is_supported() => version,
            _ => {
                return Err(r.attr_error(
                    root,
                    "version",
                    ErrorKind::Version,
                    format!("unsupported SDF version \"{v}\""),
                    format!("{supported}; declare one of them, e.g. version=\"1.12\""),
                ));
            }
        },
    };
    sizes(&r, root)?;
    Ok(r)
}

/// Refuses a document holding more models, links or collisions than the load's limits
/// ([`Limits::max_world_models`], [`Limits::max_links`], [`Limits::max_collisions`]), or a
/// link with more than [`Limits::max_link_collisions`] collisions, at the first element past
/// the limit, in one pass before anything is read from the document. A plugin's own elements
/// and a world's `<state>` are not counted.
fn sizes(r: &Reader, root: roxmltree::Node) -> Result<(), SdfError> {
    let limits = &r.loader.limits;
    let (mut models, mut links, mut collisions) = (0usize, 0usize, 0usize);
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if !is_sdf_element(node) || matches!(tag(node), "plugin" | "state") {
            continue;
        }
        let over = match tag(node) {
            "model" => {
                models += 1;
                (models > limits.max_world_models).then_some((
                    "models",
                    limits.max_world_models,
                    "world-models",
                ))
            }
            "link" => {
                links += 1;
                let max = limits.max_link_collisions;
                if let Some(c) = children(node, "collision").nth(max) {
                    return Err(r.error(
                        c,
                        ErrorKind::Invalid,
                        format!(
                            "link \"{}\" has more than {max} <collision>s (the limit on the \
                             collisions of one link)",
                            node.attribute("name").unwrap_or("")
                        ),
                        "merge them into fewer shapes (one mesh, or a few boxes), or raise the \
                         limit (--max-link-collisions, LoadOptions::limits.max_link_collisions)",
                    ));
                }
                (links > limits.max_links).then_some(("links", limits.max_links, "links"))
            }
            "collision" => {
                collisions += 1;
                (collisions > limits.max_collisions).then_some((
                    "collisions",
                    limits.max_collisions,
                    "collisions",
                ))
            }
            _ => None,
        };
        if let Some((what, max, flag)) = over {
            let field = format!("max_{}", flag.replace('-', "_"));
            return Err(r.error(
                node,
                ErrorKind::Invalid,
                format!("the file holds more than {max} {what} (the limit on {what})"),
                format!(
                    "split the world, or raise the limit (--max-{flag}, \
                     LoadOptions::limits.{field})"
                ),
            ));
        }
        let mut kids: Vec<roxmltree::Node> = node.children().filter(|c| c.is_element()).collect();
        kids.reverse();
        stack.extend(kids);
    }
    Ok(())
}

/// `result`, failed with `problems` too when there are any: every problem of the document is
/// reported, the first error of the reader first.
pub(crate) fn with_problems<T>(
    result: Result<T, SdfError>,
    problems: Vec<SdfError>,
) -> Result<T, SdfError> {
    match result {
        Err(e) => Err(e.with_others(problems)),
        Ok(value) => {
            let mut problems = problems.into_iter();
            match problems.next() {
                None => Ok(value),
                Some(first) => Err(first.with_others(problems)),
            }
        }
    }
}
