//! Why a Flight stream could not become a document.
//!
//! Every variant names what was wrong (the row, the element, the limit) so the failed document
//! tells an author or operator what to fix. Invariant: `code()` values are stable strings.

use crate::document::DocumentError;

/// A decoding failure; it fails the invocation.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FlightError {
    /// The bytes are not Flight (bad row id, bad length, invalid JSON or UTF-8).
    #[error("malformed Flight stream: {0}")]
    Malformed(String),
    /// A host element that is not one of the reserved `agent-*` tags.
    #[error(
        "{route}renders `<{element}>`, which is not an Agent element (use <Agent.Markdown>, <Agent.Text>, <Agent.Json>, …)"
    )]
    UnknownElement { element: String, route: String },
    /// A client component reference (an `I` row): Agent Documents have none.
    #[error(
        "{route}renders a client component (a module marked 'use client'); Agent Documents only hold Agent elements rendered on the server"
    )]
    ClientComponent { route: String },
    /// A value or element prop the document cannot carry.
    #[error("{0}")]
    Unsupported(String),
    /// A stream from React's development build (7-slot elements).
    #[error(
        "the Flight stream comes from a development build of React; the worker must run with NODE_ENV=production"
    )]
    DevelopmentStream,
    /// A bound of `DocumentLimits` was passed.
    #[error("{0}")]
    LimitExceeded(String),
    /// The stream ended before the document was complete.
    #[error("{0}")]
    Incomplete(String),
}

impl FlightError {
    /// The stable error code carried in documents and events.
    pub fn code(&self) -> &'static str {
        match self {
            FlightError::Malformed(_) => "malformed-flight",
            FlightError::UnknownElement { .. } => "unknown-element",
            FlightError::ClientComponent { .. } => "client-component",
            FlightError::Unsupported(_) => "unsupported-value",
            FlightError::DevelopmentStream => "development-stream",
            FlightError::LimitExceeded(_) => "limit-exceeded",
            FlightError::Incomplete(_) => "stream-incomplete",
        }
    }

    /// This error as documents carry it.
    pub fn to_document_error(&self) -> DocumentError {
        DocumentError::new(self.code(), self.to_string())
    }
}
