//! A range given by two children of an element, `lower < upper`, each with a default (the
//! camera's `<clip><near>`/`<far>`, the fiducial sensor's `<range_min>`/`<range_max>`).

use sim_plugin_api::sdf::{Element, SdfError};

/// The upper end of a range whose lower end, read from the child `lower_name` of `element`
/// (or its default), is `lower`: the child `upper_name`, which must be greater than `lower`
/// (`<upper> must be greater than <lower> (…)`), else `default`. A default that is not beyond
/// `lower` is an error at `<lower_name>` (`must be less than <upper> (…, the default)`), or
/// at `element` when that child is absent.
pub fn upper_bound(
    element: &Element<'_, '_>,
    (lower_name, lower): (&str, f64),
    upper_name: &str,
    default: f64,
) -> Result<f64, SdfError> {
    let written = element
        .param::<f64>(upper_name)
        .check(format!("greater than <{lower_name}> ({lower})"), move |u| {
            *u > lower
        })
        .get()?;
    match written {
        Some(upper) => Ok(upper),
        None if default > lower => Ok(default),
        // The default upper end is not beyond the lower one written.
        None => {
            let e = element.child(lower_name).unwrap_or(*element);
            let expected = format!("less than <{upper_name}> ({default}, the default)");
            Err(e.error(expected, e.text()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_plugin_api::sdf::{Origin, SdfDocument};

    /// `upper_bound` of `<r>` holding `children`, its lower end `lo` (from `<lo>`), upper
    /// end `<hi>` with the default 10.
    fn hi(children: &str, lo: f64) -> Result<f64, String> {
        let text = format!("<sensor>\n<r>{children}</r>\n</sensor>");
        let doc = SdfDocument::parse(&text, Origin::new("m::l::s")).unwrap();
        let r = doc.root().child("r").unwrap();
        upper_bound(&r, ("lo", lo), "hi", 10.0).map_err(|e| e.to_string())
    }

    #[test]
    fn the_upper_end_written_or_its_default() {
        assert_eq!(hi("<lo>1</lo><hi>5</hi>", 1.0), Ok(5.0));
        assert_eq!(hi("<lo>1</lo>", 1.0), Ok(10.0));
        assert_eq!(hi("", 0.5), Ok(10.0));
        // Beyond the default is fine when written.
        assert_eq!(hi("<lo>20</lo><hi>30</hi>", 20.0), Ok(30.0));
    }

    #[test]
    fn an_upper_end_not_beyond_the_lower_is_refused() {
        assert_eq!(
            hi("<lo>2</lo><hi>1</hi>", 2.0),
            Err("m::l::s: <r><hi> must be greater than <lo> (2), found \"1\"".to_string())
        );
        assert_eq!(
            hi("<lo>2</lo><hi>2</hi>", 2.0),
            Err("m::l::s: <r><hi> must be greater than <lo> (2), found \"2\"".to_string())
        );
        assert_eq!(
            hi("<hi>x</hi>", 0.0),
            Err("m::l::s: <r><hi> must be a finite number, found \"x\"".to_string())
        );
    }

    #[test]
    fn a_default_not_beyond_the_lower_end_is_an_error_at_the_lower_end() {
        assert_eq!(
            hi("<lo>12</lo>", 12.0),
            Err(
                "m::l::s: <r><lo> must be less than <hi> (10, the default), found \"12\""
                    .to_string()
            )
        );
        // A lower end from elsewhere (its own default): the error is the element's.
        assert_eq!(
            hi("", 10.0),
            Err("m::l::s: <r> must be less than <hi> (10, the default), found \"\"".to_string())
        );
    }
}
