//! The triggered publisher: its `<input>`, `<match>`, `<output>` and `<delay_ms>` elements,
//! and publishing on a match.

use crate::fields::{Fields, MessageType, same};
use crate::text::{Value, parse, parse_value};
use sim_plugin_api::prelude::*;
use sim_plugin_api::sdf::Element;
use simcore_plugin_common::gz::{GzSystem, valid_topic};
use simcore_plugin_common::plugin_document;

/// One `<match>` criterion.
#[derive(Clone, Debug, PartialEq)]
pub enum Matcher {
    /// The whole message equals (or, negated, differs from) these fields.
    Full {
        /// The expected message.
        fields: Fields,
        /// `logic_type="negative"`.
        negative: bool,
    },
    /// One field equals (or, negated, differs from) a value.
    Field {
        /// Its dotted path.
        path: String,
        /// The expected value.
        value: Value,
        /// `logic_type="negative"`.
        negative: bool,
    },
}

impl Matcher {
    /// Whether the message `fields` passes.
    pub fn passes(&self, fields: &Fields) -> bool {
        match self {
            Matcher::Full {
                fields: want,
                negative,
            } => {
                let equal = want.len() == fields.len()
                    && want
                        .iter()
                        .zip(fields)
                        .all(|(a, b)| a.0 == b.0 && same(&a.1, &b.1));
                equal != *negative
            }
            Matcher::Field {
                path,
                value,
                negative,
            } => {
                let equal = fields.iter().any(|(n, v)| n == path && same(v, value));
                equal != *negative
            }
        }
    }
}

/// One `<output>`: a message to publish on a topic.
#[derive(Clone, Debug)]
pub struct Output {
    /// The topic.
    pub topic: SharedStr,
    /// The message's type.
    pub kind: MessageType,
    /// The message's fields.
    pub fields: Fields,
}

/// A triggered publisher (see the crate documentation).
pub struct TriggeredPublisher {
    /// The input topic and type; `None` when the configuration leaves the plugin idle.
    input: Option<(String, MessageType)>,
    matchers: Vec<Matcher>,
    outputs: Vec<Output>,
    /// `<delay_ms>`, ns.
    delay_ns: i64,
    /// Publications waiting for their delay: the ns left.
    queue: Vec<i64>,
}

/// Largest `<delay_ms>` accepted (a day), and most publications waiting at once.
pub const MAX_DELAY_MS: i64 = 86_400_000;
/// See [`MAX_DELAY_MS`].
pub const MAX_QUEUED: usize = 10_000;

impl GzSystem for TriggeredPublisher {
    /// Creates the system from its `<plugin>` element. As in gz-sim, an element it cannot use
    /// (an unknown message type, a matcher or output that does not parse) is reported as a
    /// warning and left out; without a usable input or output the plugin stays idle.
    fn build(config: &SystemConfig<'_>, world: &WorldRef<'_>) -> Result<Self, PluginError> {
        let who = format!("{}: TriggeredPublisher", config.entity_name.as_str());
        let doc = plugin_document(config, &who)?;
        let mut warnings = Vec::new();
        let system = TriggeredPublisher::read(&doc.root(), &mut warnings)?;
        for w in warnings {
            world.log_message(LogLevel::WARN, &format!("{who}: {w}"));
        }
        Ok(system)
    }

    /// The topics it publishes on, each with its payload kind (none while idle).
    fn outputs(&self) -> Vec<(String, &'static str)> {
        if self.input.is_none() {
            return Vec::new();
        }
        self.outputs
            .iter()
            .map(|o| {
                let kind = o.kind.payload(&o.fields).type_name();
                (o.topic.as_str().to_string(), kind)
            })
            .collect()
    }
}

impl TriggeredPublisher {
    /// Reads the `<plugin>` element `root`; what is left out is described in `warnings`. A bad
    /// `<delay_ms>` is an error.
    pub fn read(root: &Element<'_, '_>, warnings: &mut Vec<String>) -> Result<Self, PluginError> {
        let mut system = TriggeredPublisher {
            input: None,
            matchers: Vec::new(),
            outputs: Vec::new(),
            delay_ns: 0,
            queue: Vec::new(),
        };
        if let Some(e) = root.child("delay_ms") {
            match e.text().parse::<i64>() {
                Ok(ms) if (0..=MAX_DELAY_MS).contains(&ms) => system.delay_ns = ms * 1_000_000,
                Ok(ms) if ms < 0 => {}
                _ => {
                    return Err(e
                        .error(
                            format!("a whole number of milliseconds up to {MAX_DELAY_MS}"),
                            e.text(),
                        )
                        .into());
                }
            }
        }
        for out in root.children_named("output") {
            let ty = out.attribute("type").unwrap_or("");
            let topic = out.attribute("topic").unwrap_or("");
            let Some(kind) = MessageType::from_gz(ty) else {
                warnings.push(format!(
                    "<output> type `{ty}` is not one simcore can publish ({}); left out",
                    MessageType::SUPPORTED
                ));
                continue;
            };
            let Some(topic) = valid_topic(topic) else {
                warnings.push(format!("<output> topic `{topic}` is not valid; left out"));
                continue;
            };
            match parse(out.text()).and_then(|e| kind.fields_from(&e)) {
                Ok(fields) => system.outputs.push(Output {
                    topic: SharedStr::new(&topic),
                    kind,
                    fields,
                }),
                Err(e) => warnings.push(format!("<output> on `{topic}`: {e}; left out")),
            }
        }
        if root.has("service") {
            warnings.push(
                "<service> calls are not supported (plugins cannot call services); left out".into(),
            );
        }
        let Some(input) = root.child("input") else {
            warnings.push("no <input>: the plugin does nothing".into());
            return Ok(system);
        };
        let ty = input.attribute("type").unwrap_or("");
        let topic = input.attribute("topic").unwrap_or("");
        let Some(kind) = MessageType::from_gz(ty) else {
            warnings.push(format!(
                "<input> type `{ty}` is not one simcore carries ({}): the plugin does nothing",
                MessageType::SUPPORTED
            ));
            return Ok(system);
        };
        let Some(topic) = valid_topic(topic) else {
            warnings.push(format!(
                "<input> topic `{topic}` is not valid: the plugin does nothing"
            ));
            return Ok(system);
        };
        let mut written = 0;
        for m in input.children_named("match") {
            written += 1;
            let negative = match m.attribute("logic_type").unwrap_or("positive") {
                "positive" => false,
                "negative" => true,
                other => {
                    warnings.push(format!("<match> logic_type `{other}` is unknown; left out"));
                    continue;
                }
            };
            let text = m.text();
            let matcher = match m.attribute("field") {
                Some(path) => kind
                    .defaults()
                    .iter()
                    .find(|(n, _)| *n == path)
                    .ok_or_else(|| format!("the input type has no field `{path}`"))
                    .and_then(|_| parse_value(text))
                    .map(|value| Matcher::Field {
                        path: path.to_string(),
                        value,
                        negative,
                    }),
                None => parse(text)
                    .and_then(|e| kind.fields_from(&e))
                    .map(|fields| Matcher::Full { fields, negative }),
            };
            match matcher {
                Ok(m) => system.matchers.push(m),
                Err(e) => warnings.push(format!("<match> `{text}`: {e}; left out")),
            }
        }
        if written > 0 && system.matchers.is_empty() {
            warnings.push("no valid <match>: the plugin does nothing".into());
            return Ok(system);
        }
        system.input = Some((topic, kind));
        Ok(system)
    }

    /// Whether a message `payload` on the input topic triggers the outputs.
    pub fn triggers(&self, payload: &Payload) -> bool {
        let Some((_, kind)) = &self.input else {
            return false;
        };
        kind.fields_of(payload)
            .is_some_and(|f| self.matchers.iter().all(|m| m.passes(&f)))
    }

    fn publish(&self, commands: &mut CommandsMut<'_>) {
        for o in &self.outputs {
            commands.publish(Message::new(o.topic.clone(), o.kind.payload(&o.fields)));
        }
    }
}

impl System for TriggeredPublisher {
    fn subscriptions(&self) -> Vec<String> {
        self.input.iter().map(|(t, _)| t.clone()).collect()
    }

    fn pre_step(
        &mut self,
        ctx: &StepContext,
        inbox: &[Message],
        _world: &WorldRef<'_>,
        commands: &mut CommandsMut<'_>,
    ) -> Result<(), PluginError> {
        // Delayed publications whose time has come.
        let step = ctx.step.nanos;
        let mut due = 0;
        self.queue.retain_mut(|left| {
            *left -= step;
            let go = *left <= 0;
            due += usize::from(go);
            !go
        });
        for _ in 0..due {
            self.publish(commands);
        }
        for m in inbox {
            let Ok(p) = m.payload.as_enum() else { continue };
            if !self.triggers(p) {
                continue;
            }
            if self.delay_ns > 0 {
                if self.queue.len() < MAX_QUEUED {
                    self.queue.push(self.delay_ns);
                }
            } else {
                self.publish(commands);
            }
        }
        Ok(())
    }

    fn reset(&mut self, _world: &WorldRef<'_>) -> Result<(), PluginError> {
        self.queue.clear();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_plugin_api::sdf::{Origin, SdfDocument};

    fn read(text: &str, warnings: &mut Vec<String>) -> Result<TriggeredPublisher, PluginError> {
        let doc = SdfDocument::parse(text, Origin::new("w: TriggeredPublisher"))?;
        TriggeredPublisher::read(&doc.root(), warnings)
    }

    fn build(inner: &str) -> (TriggeredPublisher, Vec<String>) {
        let mut w = Vec::new();
        let t = read(
            &format!(r#"<plugin name="gz::sim::systems::TriggeredPublisher" filename="x">{inner}</plugin>"#),
            &mut w,
        )
        .unwrap();
        (t, w)
    }

    #[test]
    fn any_message_without_a_match() {
        let (t, w) = build(
            r#"<input type="gz.msgs.Boolean" topic="/in"/><output type="gz.msgs.Empty" topic="/out"/>"#,
        );
        assert!(w.is_empty(), "{w:?}");
        assert!(t.triggers(&Payload::Boolean(false)));
        assert!(!t.triggers(&Payload::Double(1.0)), "another type does not");
        assert_eq!(t.subscriptions(), ["/in"]);
    }

    #[test]
    fn full_field_and_negative_matches() {
        let (t, _) =
            build(r#"<input type="gz.msgs.Boolean" topic="/in"><match>data: true</match></input>"#);
        assert!(t.triggers(&Payload::Boolean(true)) && !t.triggers(&Payload::Boolean(false)));
        let (t, _) = build(
            r#"<input type="gz.msgs.Vector3d" topic="/in"><match field="x">1.0</match><match field="y" logic_type="negative">2</match></input>"#,
        );
        assert!(t.triggers(&Payload::Vector3(Vec3::new(1.0, 0.0, 5.0))));
        assert!(!t.triggers(&Payload::Vector3(Vec3::new(1.0, 2.0, 5.0))));
        assert!(!t.triggers(&Payload::Vector3(Vec3::new(0.5, 0.0, 0.0))));
        let (t, _) = build(
            r#"<input type="gz.msgs.Int32" topic="/in"><match field="data">87</match></input>"#,
        );
        assert!(t.triggers(&Payload::Int64(87)) && !t.triggers(&Payload::Int64(88)));
    }

    #[test]
    fn what_cannot_be_used_is_reported_and_left_out() {
        let (t, w) = build(
            r#"<input type="gz.msgs.Int32_V" topic="/in"/><output type="gz.msgs.Empty" topic="/o"/>"#,
        );
        assert!(t.subscriptions().is_empty());
        assert!(w[0].contains("Int32_V"), "{w:?}");
        let (t, w) = build(
            r#"<input type="gz.msgs.Double" topic="/in"><match>nope: 1</match></input><output type="gz.msgs.Twist" topic="/o">linear: {q: 1}</output>"#,
        );
        assert!(t.subscriptions().is_empty());
        assert_eq!(w.len(), 3, "{w:?}");
        let mut warnings = Vec::new();
        let Err(e) = read("<plugin><delay_ms>soon</delay_ms></plugin>", &mut warnings) else {
            panic!("a delay that is not a number is refused");
        };
        assert_eq!(
            e.message.as_str(),
            "w: TriggeredPublisher: <delay_ms> must be a whole number of milliseconds up to 86400000, found \"soon\""
        );
        let (t, w) = build("");
        assert!(t.subscriptions().is_empty());
        assert_eq!(w, ["no <input>: the plugin does nothing"]);
    }

    #[test]
    fn created_with_its_outputs_and_errors_naming_the_file_and_line() {
        use simcore_plugin_common::gz::OrIdle;
        use simcore_plugin_common::testing::SystemSetup;
        let setup = SystemSetup::on_world("gz::sim::systems::TriggeredPublisher", "w").at_line(12);
        let create_from = |sdf: &str| setup.create::<TriggeredPublisher>(sdf);
        let Err(e) = create_from("<plugin>\n  <delay_ms>-</delay_ms>\n</plugin>") else {
            panic!("a delay that is not a number is refused");
        };
        assert_eq!(e.code, ErrorCode::INVALID_CONFIG);
        assert!(
            e.message.ends_with("found \"-\" at world.sdf:13"),
            "{}",
            e.message
        );
        let Ok(OrIdle::Active(t)) = create_from(
            r#"<plugin><input type="gz.msgs.Boolean" topic="/in"/><output type="gz.msgs.Empty" topic="out"/><output type="gz.msgs.Nope" topic="/x"/></plugin>"#,
        ) else {
            panic!("a publisher is created");
        };
        assert_eq!(t.outputs(), [("/out".to_string(), "Empty")]);
        let logs = setup.world.logs.lock().unwrap();
        assert_eq!(logs.len(), 1, "{logs:?}");
        assert!(
            logs[0]
                .1
                .starts_with("w: TriggeredPublisher: <output> type `gz.msgs.Nope`")
        );
    }
}
