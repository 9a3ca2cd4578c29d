//! An override's path: its steps, read from the text (see the module docs of `overrides`).

use super::{MAX_PATH_BYTES, OverrideError};

/// One step of a path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Step {
    /// An element, optionally selected.
    Element { name: String, select: Select },
    /// An attribute (the last step).
    Attribute(String),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Select {
    Only,
    Named(String),
    Index(usize),
}

impl std::fmt::Display for Step {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Step::Element { name, select } => match select {
                Select::Only => write!(f, "{name}"),
                Select::Named(n) => write!(f, "{name}[{n}]"),
                Select::Index(i) => write!(f, "{name}[{i}]"),
            },
            Step::Attribute(a) => write!(f, "@{a}"),
        }
    }
}

/// Reads an override's path into its steps.
pub(super) fn parse_path(path: &str) -> Result<Vec<Step>, OverrideError> {
    let bad = |reason: String| OverrideError::BadPath {
        path: path.to_string(),
        reason,
    };
    if path.len() > MAX_PATH_BYTES {
        return Err(bad(format!(
            "the path is {} bytes; at most {MAX_PATH_BYTES} are taken",
            path.len()
        )));
    }
    let mut rest = path.strip_prefix('/').unwrap_or(path);
    rest = rest.strip_prefix("sdf/").unwrap_or(rest);
    if rest.trim().is_empty() {
        return Err(bad(
            "the path is empty; write the elements below <sdf>, e.g. `world/model[box]/pose`"
                .into(),
        ));
    }
    // Split on `/` outside brackets (a name in brackets may hold a `/`).
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0usize, 0usize);
    for (i, c) in rest.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => depth = depth.saturating_sub(1),
            '/' if depth == 0 => {
                parts.push(&rest[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&rest[start..]);
    let last = parts.len() - 1;
    let mut steps = Vec::with_capacity(parts.len());
    for (i, part) in parts.into_iter().enumerate() {
        let part = part.trim();
        if part.is_empty() {
            return Err(bad(format!(
                "step {} is empty (`//` or a trailing `/`)",
                i + 1
            )));
        }
        if let Some(attr) = part.strip_prefix('@') {
            if i != last {
                return Err(bad(format!("the attribute `{part}` must be the last step")));
            }
            if i == 0 {
                return Err(bad(format!(
                    "the attribute `{part}` needs an element before it"
                )));
            }
            if !is_name(attr) {
                return Err(bad(format!("`{attr}` is not an attribute name")));
            }
            steps.push(Step::Attribute(attr.to_string()));
            continue;
        }
        let (name, select) = match part.find('[') {
            None => (part, Select::Only),
            Some(open) => {
                let Some(inner) = part[open + 1..].strip_suffix(']') else {
                    return Err(bad(format!(
                        "`{part}`: a selector is written `name[text]` or `name[N]`, closed by \
                         `]` at the end of the step"
                    )));
                };
                let select = match inner.parse::<usize>() {
                    Ok(n) if inner.bytes().all(|b| b.is_ascii_digit()) => Select::Index(n),
                    _ if inner.is_empty() => {
                        return Err(bad(format!("`{part}`: the selector is empty")));
                    }
                    _ => Select::Named(inner.to_string()),
                };
                (&part[..open], select)
            }
        };
        if !is_name(name) {
            return Err(bad(format!("`{name}` is not an element name")));
        }
        steps.push(Step::Element {
            name: name.to_string(),
            select,
        });
    }
    Ok(steps)
}

/// Whether `s` can be an XML name (as SDF writes them: letters, digits, `_`, `-`, `.`, `:`).
fn is_name(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | ':'))
}
