//! Decoding a host's stdin payload into a canonical event, driven by a host's [`HostEnvelope`]
//! table and one [`Decoder`] row per payload shape.
//!
//! Entry: [`Decoder::decode`]. Invariant: the payload is parsed once (by [`super::json`], with no
//! recursion limit), every field the decoder relies on is type-checked (a wrong type is silence,
//! never a guess), and only documented fields reach `native`, bounded; fields that are unbounded
//! or personal only when the route names them. The tool input and the prompt, which a guard
//! judges, are kept whole (the payload budget bounds them); what was cut below the depth limit
//! or read lossily is marked on them, never hidden.

use serde_json::{Map, Value};
use sha2::{Digest as _, Sha256};

use super::json::{JsonError, Payload, read_payload};
use crate::canonical::{
    Axis, AxisSource, Bounds, CanonicalEvent, CanonicalTool, Prompt, ToolSelector, bound_text,
    bound_value,
};

/// How one host's payloads are shaped.
pub struct HostEnvelope {
    pub host: &'static str,
    /// The revision of the host's hook contract these tables follow.
    pub contract_revision: &'static str,
    /// The field naming the native event.
    pub event_field: &'static str,
    pub session_field: &'static str,
    /// The working directory, standing in for the project when the host names no project.
    pub cwd_field: &'static str,
    /// The environment variable in which the host names the project directory, if any.
    pub project_dir_env: Option<&'static str>,
    /// A payload field listing the workspace roots, whose first entry names the project.
    pub roots_field: Option<&'static str>,
    pub tool_name_field: &'static str,
    pub tool_input_field: &'static str,
    pub prompt_field: &'static str,
    /// Documented fields any payload of this host may carry.
    pub common_fields: &'static [&'static str],
    /// Documented fields of every payload that enter `native` only when the route names them
    /// (Cursor's `user_email` identifies a person).
    pub common_opt_in_fields: &'static [&'static str],
    /// Native tool name → canonical selector; a tool no row names is `other`.
    pub tools: &'static [ToolRow],
    /// The other host a payload recognisably comes from (hosts replay each other's hooks). It
    /// judges by fields this host always sends that are missing, never by extra fields alone: a
    /// host adding a field (Claude Code sending a `turn_id`) must not turn its guards off.
    pub foreign: fn(&Map<String, Value>) -> Option<&'static str>,
}

/// The native tools of one selector.
pub struct ToolRow {
    pub selector: ToolSelector,
    pub names: ToolNames,
}

/// Which native tool names a [`ToolRow`] covers.
pub enum ToolNames {
    Exact(&'static [&'static str]),
    Prefix(&'static str),
}

impl HostEnvelope {
    /// The canonical selector of the native tool `name`.
    pub fn selector(&self, name: &str) -> ToolSelector {
        self.tools
            .iter()
            .find(|row| match row.names {
                ToolNames::Exact(names) => names.contains(&name),
                ToolNames::Prefix(prefix) => name.starts_with(prefix),
            })
            .map_or(ToolSelector::Other, |row| row.selector)
    }
}

/// One payload shape of a host (the manifest's `decoder` id names it).
pub struct Decoder {
    pub id: &'static str,
    pub envelope: &'static HostEnvelope,
    /// Documented, short fields of this shape beyond the common ones.
    pub fields: &'static [&'static str],
    /// Documented fields kept out of `native` unless the route lists them in `config.native`:
    /// unbounded text (messages, tool output) or anything that identifies a person.
    pub opt_in_fields: &'static [&'static str],
    /// Whether and how the payload names a tool.
    pub tool: ToolShape,
    /// Whether the payload carries a prompt.
    pub prompt: bool,
    /// A field the payload must hold with this exact string value, for a canonical event the
    /// host delivers only as a case of a wider native event that no matcher can narrow (Cursor's
    /// `stop` with `status: "aborted"` is a turn interrupt); any other value is silence.
    pub only_when: Option<(&'static str, &'static str)>,
}

impl Decoder {
    /// A shape with only extra fields: no tool, no prompt, no condition. Most of a host's
    /// decoders are this; the others spell out what they add.
    pub const fn plain(
        id: &'static str,
        envelope: &'static HostEnvelope,
        fields: &'static [&'static str],
        opt_in_fields: &'static [&'static str],
    ) -> Self {
        Self {
            id,
            envelope,
            fields,
            opt_in_fields,
            tool: ToolShape::None,
            prompt: false,
            only_when: None,
        }
    }
}

/// How a payload shape names the tool it concerns.
#[derive(Debug, Clone, Copy)]
pub enum ToolShape {
    /// Not a tool event.
    None,
    /// The envelope's tool name and input fields; the selector from the host's tool table.
    Named,
    /// The envelope's tool name and input fields, every tool of one selector (Cursor's
    /// `beforeMCPExecution` names the MCP tool without a prefix).
    NamedAs(ToolSelector),
    /// An event about one kind of tool that names none (Cursor's `beforeShellExecution`): the
    /// tool is `name`, its input the object of these payload fields.
    Fixed {
        name: &'static str,
        selector: ToolSelector,
        input_fields: &'static [&'static str],
    },
}

/// One payload to decode and what the hook binding expects of it.
pub struct DecodeInput<'a> {
    /// The stdin bytes, already bounded by the caller.
    pub payload: &'a [u8],
    /// The canonical event of the binding (`tool/after`).
    pub event: &'a str,
    /// The native event of the binding (`PostToolUse`).
    pub native_event: &'a str,
    /// The fields the route asked for by name (`config.native`).
    pub opt_in: &'a [String],
    /// Reads one environment variable of the hook process.
    pub env: &'a dyn Fn(&str) -> Option<String>,
    /// Nesting of payload values kept (the binding's `payloadMaxDepth`); deeper is cut, marked.
    pub max_depth: usize,
}

/// What a payload decodes to.
#[derive(Debug)]
pub enum Decoded {
    Event(Box<CanonicalEvent>),
    /// Not a payload to answer; the hook prints nothing.
    Silent(Silence),
}

/// Why a payload is answered with silence.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Silence {
    #[error("the payload is not JSON: {0}")]
    NotJson(String),
    #[error("the payload is not UTF-8 text (byte {offset})")]
    NotUtf8 { offset: usize },
    #[error("the payload is not a JSON object")]
    NotAnObject,
    #[error("the payload comes from {found}, not {expected}")]
    OtherHost {
        found: &'static str,
        expected: &'static str,
    },
    #[error("the payload is a `{found}` event; this hook answers `{expected}`")]
    OtherEvent { found: String, expected: String },
    #[error("the payload's `{field}` is not `{expected}`; this hook answers only that case")]
    OtherCase {
        field: &'static str,
        expected: &'static str,
    },
    #[error("the payload's `{field}` {problem}")]
    Invalid {
        field: &'static str,
        problem: &'static str,
    },
}

impl Silence {
    /// Whether the payload is this hook's delivery but cannot be read (a guard that fails closed
    /// denies it), rather than another host's, event's or case's (always silence).
    pub fn is_unreadable(&self) -> bool {
        match self {
            Silence::NotJson(_)
            | Silence::NotUtf8 { .. }
            | Silence::NotAnObject
            | Silence::Invalid { .. } => true,
            Silence::OtherHost { .. } | Silence::OtherEvent { .. } | Silence::OtherCase { .. } => {
                false
            }
        }
    }
}

impl Decoder {
    /// Decodes one payload.
    pub fn decode(&self, input: &DecodeInput<'_>) -> Decoded {
        match self.try_decode(input) {
            Ok(event) => Decoded::Event(Box::new(event)),
            Err(silence) => Decoded::Silent(silence),
        }
    }

    fn try_decode(&self, input: &DecodeInput<'_>) -> Result<CanonicalEvent, Silence> {
        let envelope = self.envelope;
        let read = read_payload(input.payload, input.max_depth).map_err(|error| match error {
            JsonError::NotUtf8 { offset } => Silence::NotUtf8 { offset },
            syntax @ JsonError::Syntax { .. } => Silence::NotJson(syntax.to_string()),
        })?;
        let Value::Object(payload) = &read.value else {
            return Err(Silence::NotAnObject);
        };
        if let Some(found) = (envelope.foreign)(payload) {
            return Err(Silence::OtherHost {
                found,
                expected: envelope.host,
            });
        }
        match text_field(payload, envelope.event_field)? {
            Some(found) if found == input.native_event => {}
            Some(found) => {
                return Err(Silence::OtherEvent {
                    found: bound_text(found, 64).0,
                    expected: input.native_event.to_owned(),
                });
            }
            None => return Err(invalid(envelope.event_field, "is missing")),
        }
        if let Some((field, expected)) = self.only_when
            && text_field(payload, field)? != Some(expected)
        {
            return Err(Silence::OtherCase { field, expected });
        }
        let session = match text_field(payload, envelope.session_field)? {
            Some(session) if !session.is_empty() => native_axis(session),
            _ => Axis::Unavailable {
                reason: format!("the payload has no `{}`", envelope.session_field),
            },
        };
        let workspace = self.workspace(payload, input)?;
        let tool = self.tool(payload, &read)?;
        let prompt = if self.prompt {
            text_field(payload, envelope.prompt_field)?.map(|text| Prompt {
                text: text.to_owned(),
                truncated: false,
                lossy: read.lossy.contains(envelope.prompt_field),
            })
        } else {
            None
        };
        Ok(CanonicalEvent {
            event: input.event.to_owned(),
            host: envelope.host.to_owned(),
            contract_revision: envelope.contract_revision.to_owned(),
            idempotency_key: idempotency_key(envelope.host, input.native_event, input.payload),
            session,
            workspace,
            tool,
            prompt,
            native: self.native(payload, input.opt_in),
        })
    }

    /// The host's named project directory, else the working directory (derived), else unknown.
    fn workspace(
        &self,
        payload: &Map<String, Value>,
        input: &DecodeInput<'_>,
    ) -> Result<Axis, Silence> {
        let envelope = self.envelope;
        if let Some(directory) = envelope
            .project_dir_env
            .and_then(|name| (input.env)(name))
            .filter(|directory| !directory.is_empty())
        {
            return Ok(native_axis(&directory));
        }
        if let Some(root) = envelope
            .roots_field
            .and_then(|field| payload.get(field))
            .and_then(Value::as_array)
            .and_then(|roots| roots.first())
            .and_then(Value::as_str)
            .filter(|root| !root.is_empty())
        {
            return Ok(native_axis(root));
        }
        Ok(match text_field(payload, envelope.cwd_field)? {
            Some(cwd) if !cwd.is_empty() => Axis::Available {
                value: bound_text(cwd, Bounds::NATIVE.max_string_bytes).0,
                source: AxisSource::Derived,
            },
            _ => Axis::Unavailable {
                reason: match envelope.project_dir_env {
                    Some(name) => format!("neither ${name} nor `{}` is set", envelope.cwd_field),
                    None => format!("the payload has no `{}`", envelope.cwd_field),
                },
            },
        })
    }

    /// The tool and its input, whole: the reader already kept it to the depth limit, and the
    /// payload budget bounds its size. `read` says which fields were cut or lossy.
    fn tool(
        &self,
        payload: &Map<String, Value>,
        read: &Payload,
    ) -> Result<Option<CanonicalTool>, Silence> {
        let envelope = self.envelope;
        let input_fields: &[&str] = match self.tool {
            ToolShape::None => &[],
            ToolShape::Named | ToolShape::NamedAs(_) => {
                std::slice::from_ref(&envelope.tool_input_field)
            }
            ToolShape::Fixed { input_fields, .. } => input_fields,
        };
        let (name, selector, input) = match self.tool {
            ToolShape::None => return Ok(None),
            ToolShape::Named | ToolShape::NamedAs(_) => {
                let name = text_field(payload, envelope.tool_name_field)?
                    .ok_or_else(|| invalid(envelope.tool_name_field, "is missing"))?;
                let selector = match self.tool {
                    ToolShape::NamedAs(selector) => selector,
                    _ => envelope.selector(name),
                };
                let input = payload
                    .get(envelope.tool_input_field)
                    .cloned()
                    .unwrap_or(Value::Null);
                (name, selector, input)
            }
            ToolShape::Fixed {
                name,
                selector,
                input_fields,
            } => {
                let input: Map<String, Value> = input_fields
                    .iter()
                    .filter_map(|field| Some(((*field).to_owned(), payload.get(*field)?.clone())))
                    .collect();
                (name, selector, Value::Object(input))
            }
        };
        let marked = |set: &std::collections::BTreeSet<String>| {
            input_fields.iter().any(|field| set.contains(*field))
        };
        Ok(Some(CanonicalTool {
            selector,
            name: bound_text(name, Bounds::NATIVE.max_string_bytes).0,
            input,
            truncated: marked(&read.cut),
            lossy: marked(&read.lossy),
        }))
    }

    /// Documented fields in the host's order; the tool input and the prompt live in `tool` and
    /// `prompt` instead.
    fn native(&self, payload: &Map<String, Value>, opt_in: &[String]) -> Map<String, Value> {
        let envelope = self.envelope;
        let mut native = Map::new();
        for (key, value) in payload {
            let key = key.as_str();
            let bounds = if envelope.common_fields.contains(&key) || self.fields.contains(&key) {
                &Bounds::NATIVE
            } else if (self.opt_in_fields.contains(&key)
                || envelope.common_opt_in_fields.contains(&key))
                && opt_in.iter().any(|name| name == key)
            {
                &Bounds::CONTENT
            } else {
                continue;
            };
            let in_tool = match self.tool {
                ToolShape::None => false,
                ToolShape::Named | ToolShape::NamedAs(_) => key == envelope.tool_input_field,
                ToolShape::Fixed { input_fields, .. } => input_fields.contains(&key),
            };
            if in_tool || (self.prompt && key == envelope.prompt_field) {
                continue;
            }
            native.insert(key.to_owned(), bound_value(value, bounds).0);
        }
        native
    }
}

fn native_axis(value: &str) -> Axis {
    Axis::Available {
        value: bound_text(value, Bounds::NATIVE.max_string_bytes).0,
        source: AxisSource::Native,
    }
}

/// A string field: `Ok(None)` when absent or null, silence when it holds anything but a string.
fn text_field<'p>(
    payload: &'p Map<String, Value>,
    field: &'static str,
) -> Result<Option<&'p str>, Silence> {
    match payload.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text)),
        Some(_) => Err(invalid(field, "is not a string")),
    }
}

fn invalid(field: &'static str, problem: &'static str) -> Silence {
    Silence::Invalid { field, problem }
}

/// sha256 over the host, the native event and the payload bytes as received: a host's retry of
/// one delivery repeats the bytes; any other delivery differs in ids, prompt or content.
fn idempotency_key(host: &str, native_event: &str, payload: &[u8]) -> String {
    let mut hasher = Sha256::new();
    for part in [host.as_bytes(), native_event.as_bytes(), payload] {
        hasher.update((part.len() as u64).to_le_bytes());
        hasher.update(part);
    }
    hasher
        .finalize()
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}
