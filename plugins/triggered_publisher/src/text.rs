//! Protobuf text format, the subset gz-sim's worlds write in `<match>` and `<output>`:
//! `name: value` and `name { ... }` (or `name: { ... }`) entries separated by spaces, commas or
//! semicolons; values are numbers, `true` / `false`, enum words and quoted strings.

/// A scalar value of a field.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// A number (every numeric field is kept as `f64`).
    Number(f64),
    /// A boolean.
    Bool(bool),
    /// A string (or an enum word).
    Text(String),
}

/// The entries of a text-format message, flattened: each scalar with its dotted field path
/// (`linear.x`), in the order written.
pub type Entries = Vec<(String, Value)>;

/// Longest text accepted, bytes: a `<match>` or `<output>` is a short message.
pub const MAX_TEXT: usize = 64 * 1024;
/// Deepest nesting of sub-messages accepted.
pub const MAX_DEPTH: usize = 16;

/// Parses `text` into its flattened entries; an error says what is wrong where.
pub fn parse(text: &str) -> Result<Entries, String> {
    if text.len() > MAX_TEXT {
        return Err(format!("longer than {MAX_TEXT} bytes"));
    }
    let tokens = tokenize(text)?;
    let mut out = Vec::new();
    let mut pos = 0;
    entries(&tokens, &mut pos, "", 0, &mut out)?;
    if pos != tokens.len() {
        return Err(format!("unexpected `{}`", tokens[pos]));
    }
    Ok(out)
}

/// Parses the text of one scalar field value (a field `<match>`).
pub fn parse_value(text: &str) -> Result<Value, String> {
    let tokens = tokenize(text)?;
    match tokens.as_slice() {
        [t] => scalar(t),
        _ => Err(format!("`{}` is not one value", text.trim())),
    }
}

fn tokenize(text: &str) -> Result<Vec<String>, String> {
    let mut tokens = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() || c == ',' || c == ';' {
            chars.next();
        } else if c == '#' {
            while chars.next().is_some_and(|c| c != '\n') {}
        } else if matches!(c, '{' | '}' | ':' | '<' | '>') {
            tokens.push(c.to_string());
            chars.next();
        } else if c == '"' || c == '\'' {
            chars.next();
            let mut s = String::from('"');
            loop {
                match chars.next() {
                    None => return Err("unterminated string".into()),
                    Some(q) if q == c => break,
                    Some('\\') => s.push(chars.next().unwrap_or('\\')),
                    Some(x) => s.push(x),
                }
            }
            tokens.push(s);
        } else {
            let mut s = String::new();
            while let Some(&x) = chars.peek() {
                if x.is_whitespace() || matches!(x, ',' | ';' | '{' | '}' | ':' | '<' | '>' | '"') {
                    break;
                }
                s.push(x);
                chars.next();
            }
            tokens.push(s);
        }
    }
    Ok(tokens)
}

fn scalar(t: &str) -> Result<Value, String> {
    if let Some(s) = t.strip_prefix('"') {
        return Ok(Value::Text(s.to_string()));
    }
    match t {
        "true" | "True" | "t" => return Ok(Value::Bool(true)),
        "false" | "False" | "f" => return Ok(Value::Bool(false)),
        _ => {}
    }
    let lower = t.to_ascii_lowercase();
    let number = match lower.as_str() {
        "inf" | "infinity" => Some(f64::INFINITY),
        "-inf" | "-infinity" => Some(f64::NEG_INFINITY),
        "nan" => Some(f64::NAN),
        _ => lower
            .trim_end_matches('f')
            .parse::<f64>()
            .ok()
            .or_else(|| lower.parse::<f64>().ok()),
    };
    match number {
        Some(n) => Ok(Value::Number(n)),
        None if t.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') && !t.is_empty() => {
            Ok(Value::Text(t.to_string()))
        }
        None => Err(format!("`{t}` is not a value")),
    }
}

fn entries(
    tokens: &[String],
    pos: &mut usize,
    prefix: &str,
    depth: usize,
    out: &mut Entries,
) -> Result<(), String> {
    if depth > MAX_DEPTH {
        return Err(format!("nested deeper than {MAX_DEPTH}"));
    }
    while *pos < tokens.len() {
        let name = &tokens[*pos];
        if name == "}" || name == ">" {
            return Ok(());
        }
        if !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') || name.is_empty() {
            return Err(format!("`{name}` is not a field name"));
        }
        let path = if prefix.is_empty() {
            name.clone()
        } else {
            format!("{prefix}.{name}")
        };
        *pos += 1;
        if tokens.get(*pos).map(String::as_str) == Some(":") {
            *pos += 1;
        }
        match tokens.get(*pos).map(String::as_str) {
            Some(open @ ("{" | "<")) => {
                let close = if open == "{" { "}" } else { ">" };
                *pos += 1;
                entries(tokens, pos, &path, depth + 1, out)?;
                if tokens.get(*pos).map(String::as_str) != Some(close) {
                    return Err(format!("`{name}` is not closed with `{close}`"));
                }
                *pos += 1;
            }
            Some(t) => {
                out.push((path, scalar(t)?));
                *pos += 1;
            }
            None => return Err(format!("`{name}` has no value")),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalars_and_sub_messages() {
        assert_eq!(
            parse("data: true").unwrap(),
            [("data".into(), Value::Bool(true))]
        );
        assert_eq!(
            parse("linear: {x: 1.5}, angular {z: -0.2}").unwrap(),
            [
                ("linear.x".into(), Value::Number(1.5)),
                ("angular.z".into(), Value::Number(-0.2))
            ]
        );
        assert_eq!(
            parse("data: \"hi there\"").unwrap(),
            [("data".into(), Value::Text("hi there".into()))]
        );
        assert_eq!(parse("").unwrap(), []);
        assert_eq!(parse_value(" 87 ").unwrap(), Value::Number(87.0));
        assert_eq!(parse_value("1.0").unwrap(), Value::Number(1.0));
    }

    #[test]
    fn errors_are_reported() {
        assert!(parse("data:").unwrap_err().contains("no value"));
        assert!(parse("linear { x: 1").unwrap_err().contains("not closed"));
        assert!(parse("data: \"open").unwrap_err().contains("unterminated"));
        assert!(parse("} x").is_err());
        assert!(parse_value("1 2").is_err());
        let deep = "a {".repeat(40) + &"}".repeat(40);
        assert!(parse(&deep).unwrap_err().contains("deeper"));
    }
}
