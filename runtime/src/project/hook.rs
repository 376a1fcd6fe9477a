//! The hook projection: a final Agent Document to what a hook can say — context for the agent,
//! a deny, a notice for the user — before a host encoder (`crate::hosts`) writes it natively.
//!
//! Entry: [`project_hook`]. Invariant: only context, deny and notice nodes project (markdown and
//! text count as context); any other node, a result value, a represented error or a failed
//! document is a [`HookProjectionError`], and the caller answers with nothing rather than with
//! part of the document.

use crate::document::{Document, DocumentError, Node, Status};

/// What a hook's document says, host-neutral, in document order within each kind.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HookAnswer {
    /// Text for the agent's context (`<Agent.Context>`, `<Agent.Markdown>`, `<Agent.Text>`).
    pub context: Vec<String>,
    /// Reasons of `<Agent.Deny>`.
    pub deny: Vec<String>,
    /// Messages for the user (`<Agent.Notice>`).
    pub notice: Vec<String>,
}

impl HookAnswer {
    /// Whether the document says nothing at all.
    pub fn is_empty(&self) -> bool {
        self.context.is_empty() && self.deny.is_empty() && self.notice.is_empty()
    }
}

/// Why a hook document cannot be answered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HookProjectionError {
    #[error("the render failed ({}): {}", .0.code, .0.message)]
    Failed(DocumentError),
    #[error("the document holds an error ({}): {}", .0.code, .0.message)]
    Represented(DocumentError),
    #[error("a hook document holds only context, deny and notice nodes, not {0}")]
    Unsupported(&'static str),
}

/// The answer of a completed hook document.
pub fn project_hook(document: &Document) -> Result<HookAnswer, HookProjectionError> {
    if document.status == Status::Failed {
        let error = match &document.root {
            Node::Error { code, message } => DocumentError::new(code.clone(), message.clone()),
            _ => DocumentError::new("failed", "the render failed"),
        };
        return Err(HookProjectionError::Failed(error));
    }
    if document.value.is_some() {
        return Err(HookProjectionError::Unsupported("a result value"));
    }
    let mut answer = HookAnswer::default();
    match &document.root {
        // The decoder always wraps the top level in a result node; only that one is a container.
        Node::Result { children } => {
            for child in children {
                collect(child, &mut answer)?;
            }
        }
        other => collect(other, &mut answer)?,
    }
    Ok(answer)
}

fn collect(node: &Node, answer: &mut HookAnswer) -> Result<(), HookProjectionError> {
    let (list, text) = match node {
        Node::Context { text } | Node::Markdown { text } | Node::Text { text } => {
            (&mut answer.context, text)
        }
        Node::Deny { reason } => (&mut answer.deny, reason),
        Node::Notice { text } => (&mut answer.notice, text),
        // Final documents have no boundaries; a resolved one would only group its children.
        Node::Boundary { children, .. } => {
            return children.iter().try_for_each(|child| collect(child, answer));
        }
        Node::Error { code, message } => {
            return Err(HookProjectionError::Represented(DocumentError::new(
                code.clone(),
                message.clone(),
            )));
        }
        Node::Result { .. } => return Err(HookProjectionError::Unsupported("a result node")),
        Node::Json { .. } => return Err(HookProjectionError::Unsupported("a json node")),
        Node::Progress { .. } => return Err(HookProjectionError::Unsupported("a progress node")),
        Node::Image { .. } => return Err(HookProjectionError::Unsupported("an image node")),
        Node::Audio { .. } => return Err(HookProjectionError::Unsupported("an audio node")),
        Node::Resource { .. } => return Err(HookProjectionError::Unsupported("a resource node")),
    };
    let text = text.trim();
    if !text.is_empty() {
        list.push(text.to_owned());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::Children;
    use serde_json::json;

    fn document(children: Vec<Node>) -> Document {
        Document::new(
            Node::Result {
                children: children.into(),
            },
            None,
        )
    }

    #[test]
    fn context_deny_and_notice_are_collected_in_order() {
        let answer = project_hook(&document(vec![
            Node::Context {
                text: "one\n".into(),
            },
            Node::Markdown { text: "two".into() },
            Node::Deny {
                reason: "no".into(),
            },
            Node::Notice { text: "hi".into() },
            Node::Text { text: "  ".into() },
        ]))
        .unwrap();
        assert_eq!(answer.context, ["one", "two"]);
        assert_eq!(answer.deny, ["no"]);
        assert_eq!(answer.notice, ["hi"]);
        assert!(project_hook(&document(vec![])).unwrap().is_empty());
    }

    #[test]
    fn other_content_is_refused_whole() {
        let json_node = document(vec![
            Node::Context {
                text: "kept?".into(),
            },
            Node::Json { value: json!(1) },
        ]);
        assert_eq!(
            project_hook(&json_node),
            Err(HookProjectionError::Unsupported("a json node"))
        );
        let with_value = Document::new(
            Node::Result {
                children: Children::default(),
            },
            Some(json!({})),
        );
        assert!(project_hook(&with_value).is_err());
        let failed = Document::failed(&DocumentError::new("timeout", "too slow"));
        assert_eq!(
            project_hook(&failed).unwrap_err().to_string(),
            "the render failed (timeout): too slow"
        );
        let represented = document(vec![Node::Error {
            code: "x".into(),
            message: "y".into(),
        }]);
        assert!(matches!(
            project_hook(&represented),
            Err(HookProjectionError::Represented(_))
        ));
    }
}
