//! Values read by path below an element ([`Element::get`], [`Element::param`], ...), with
//! their units and bounds.

use super::element::{Element, FromSdf};
use super::error::SdfError;
use std::fmt::Display;

impl<'a, 't> Element<'a, 't> {
    /// The value at `path` read as `T`: `None` when the element is absent, an error when its
    /// text does not read as `T`.
    pub fn get<T: FromSdf>(&self, path: &str) -> Result<Option<T>, SdfError> {
        self.param(path).get()
    }

    /// The value at `path` read as `T`, or `default` when the element is absent.
    pub fn get_or<T: FromSdf>(&self, path: &str, default: T) -> Result<T, SdfError> {
        self.param(path).or(default)
    }

    /// The value at `path` read as `T`; a missing element is an error too.
    pub fn require<T: FromSdf>(&self, path: &str) -> Result<T, SdfError> {
        self.param(path).required()
    }

    /// The element at `path`; an absent one is the [`Element::missing`] error saying what it
    /// must hold (`"the directory frames are written to"`).
    pub fn require_element(
        &self,
        path: &str,
        expected: impl Into<String>,
    ) -> Result<Element<'a, 't>, SdfError> {
        self.find(path).ok_or_else(|| self.missing(path, expected))
    }

    /// The error for the element at `path` below this one being absent:
    /// `<owner>: <path> is required (<expected>)`, at the line of the deepest element of the
    /// path that is there.
    pub fn missing(&self, path: &str, expected: impl Into<String>) -> SdfError {
        let mut at = *self;
        let mut label = String::new();
        for step in path.split('/').filter(|s| !s.is_empty()) {
            match (label.is_empty(), at.child(step)) {
                (true, Some(next)) => at = next,
                _ => label.push_str(&format!("<{step}>")),
            }
        }
        SdfError::missing(
            at.document().origin(),
            format!("{}{label}", at.prefix()),
            expected,
            at.place(),
        )
    }

    /// The value at `path`, with a unit and bounds for its messages and checks:
    /// `e.param::<f64>("range/min").unit("metres").non_negative().or(0.1)`.
    pub fn param<T: FromSdf>(&self, path: &str) -> Param<'a, 't, T> {
        Param::new(*self, path)
    }
}

/// A check of a value read: what it must be, in messages, and the test.
type Check<T> = (String, Box<dyn Fn(&T) -> bool>);

/// A value at a path below an element, with its unit and bounds, read by [`Param::get`],
/// [`Param::or`] or [`Param::required`]. Made by [`Element::param`]:
///
/// ```
/// # use sim_plugin_api::sdf::{Origin, SdfDocument};
/// let doc = SdfDocument::parse("<ray><range><min>-1</min></range></ray>", Origin::new("m::l::s")).unwrap();
/// let e = doc.root().param::<f64>("range/min").unit("metres").non_negative().or(0.1).unwrap_err();
/// assert_eq!(e.to_string(), "m::l::s: <range><min> must be zero or positive, found \"-1\"");
/// ```
pub struct Param<'a, 't, T> {
    element: Element<'a, 't>,
    path: String,
    unit: Option<String>,
    checks: Vec<Check<T>>,
}

impl<'a, 't, T: FromSdf> Param<'a, 't, T> {
    pub(crate) fn new(element: Element<'a, 't>, path: &str) -> Self {
        Param {
            element,
            path: path.to_string(),
            unit: None,
            checks: Vec::new(),
        }
    }

    /// The unit of the value, for messages (`"metres"`: `must be a finite number in metres`).
    pub fn unit(mut self, unit: impl Into<String>) -> Self {
        self.unit = Some(unit.into());
        self
    }

    /// A check of the value: `test` must hold; `what` says what the value must be otherwise
    /// (`"an odd number"`).
    pub fn check(mut self, what: impl Into<String>, test: impl Fn(&T) -> bool + 'static) -> Self {
        self.checks.push((what.into(), Box::new(test)));
        self
    }

    /// What the text must be, with the unit.
    fn expected(&self) -> String {
        match &self.unit {
            Some(unit) => format!("{} in {unit}", T::expected()),
            None => T::expected().into_owned(),
        }
    }

    /// The value: `None` when the element is absent; an error when its text does not read as
    /// `T` or a check fails.
    pub fn get(self) -> Result<Option<T>, SdfError> {
        let Some(e) = self.element.find(&self.path) else {
            return Ok(None);
        };
        let value = T::from_element(&e).map_err(|expected| {
            let expected = match &self.unit {
                Some(unit) => format!("{expected} in {unit}"),
                None => expected.into_owned(),
            };
            e.error(expected, e.text())
        })?;
        for (what, test) in &self.checks {
            if !test(&value) {
                return Err(e.error(what.clone(), e.text()));
            }
        }
        Ok(Some(value))
    }

    /// The value, or `default` when the element is absent.
    pub fn or(self, default: T) -> Result<T, SdfError> {
        Ok(self.get()?.unwrap_or(default))
    }

    /// The value; an absent element is an error naming it ([`Element::missing`]).
    pub fn required(self) -> Result<T, SdfError> {
        let (element, path, expected) = (self.element, self.path.clone(), self.expected());
        match self.get()? {
            Some(v) => Ok(v),
            None => Err(element.missing(&path, expected)),
        }
    }
}

impl<'a, 't, T: FromSdf + PartialOrd + Display + 'static> Param<'a, 't, T> {
    /// The value must be at least `min`.
    pub fn at_least(self, min: T) -> Self {
        self.check(format!("at least {min}"), move |v| *v >= min)
    }

    /// The value must be at most `max`.
    pub fn at_most(self, max: T) -> Self {
        self.check(format!("at most {max}"), move |v| *v <= max)
    }

    /// The value must be from `min` to `max`, both included.
    pub fn within(self, min: T, max: T) -> Self {
        self.check(format!("from {min} to {max}"), move |v| {
            *v >= min && *v <= max
        })
    }
}

impl<'a, 't, T: FromSdf + PartialOrd + Default + 'static> Param<'a, 't, T> {
    /// The value must not be negative.
    pub fn non_negative(self) -> Self {
        self.check("zero or positive", |v| *v >= T::default())
    }

    /// The value must be greater than zero.
    pub fn positive(self) -> Self {
        self.check("positive", |v| *v > T::default())
    }
}
