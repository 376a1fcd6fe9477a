//! The warm socket renders through the kernel: the same pool, queue, budgets and cancellation as
//! every other surface, so a hook answered warm is rendered exactly as MCP renders a tool.
//!
//! Invariant: a request the kernel refuses (busy, stopping) still ends with a failed `complete`
//! naming why, and a client that hangs up cancels its render.

use std::time::Instant;

use serde_json::Value;

use super::protocol::{WarmKind, WarmRequest};
use super::server::RenderSource;
use crate::document::{DocumentError, RenderEvent};
use crate::kernel::{Cancel, Invocation, Kernel};
use crate::worker::{RenderLimits, RouteKind};

impl RenderSource for Kernel {
    fn render(
        &self,
        request: &WarmRequest,
        deadline: Instant,
        emit: &mut dyn FnMut(&RenderEvent) -> bool,
    ) {
        let input = match request.kind {
            WarmKind::Tool => request.input.clone(),
            WarmKind::Event => request.event.clone(),
        };
        let invocation = Invocation {
            kind: match request.kind {
                WarmKind::Tool => RouteKind::Tool,
                WarmKind::Event => RouteKind::Event,
            },
            route: request.route.clone(),
            input: input.unwrap_or_else(|| Value::Object(Default::default())),
            context: Default::default(),
            limits: RenderLimits {
                max_flight_bytes: u64::try_from(self.limits().max_bytes).ok(),
                max_elapsed_ms: u64::try_from(
                    deadline
                        .saturating_duration_since(Instant::now())
                        .as_millis(),
                )
                .ok(),
            },
        };
        let rendering = match Kernel::render(self, invocation, Cancel::new(), deadline) {
            Ok(rendering) => rendering,
            Err(refused) => {
                let error = DocumentError::new(refused.code(), refused.to_string());
                for event in self.failed_events(&request.route, error) {
                    emit(&event);
                }
                return;
            }
        };
        for event in rendering {
            if !emit(&event) {
                // The client hung up: dropping the rendering cancels it.
                return;
            }
        }
    }
}
