//! The warm socket renders through the kernel: the same pool, queue, budgets and cancellation as
//! every other surface, so a hook answered warm is rendered exactly as MCP renders a tool.
//!
//! Invariant: a request the kernel refuses (busy, stopping, or it could not start) still ends
//! with a failed `complete` naming why, and a client that hangs up cancels its render.

use std::time::Instant;

use serde_json::Value;

use super::protocol::{WarmKind, WarmRequest};
use super::server::RenderSource;
use crate::document::{DocumentError, RenderEvent};
use crate::flight::FlightDecoder;
use crate::kernel::{Cancel, Invocation, Kernel, SharedKernel};
use crate::worker::{RenderLimits, RouteKind};

impl RenderSource for Kernel {
    fn render(
        &self,
        request: &WarmRequest,
        deadline: Instant,
        emit: &mut dyn FnMut(&RenderEvent) -> bool,
    ) {
        render_on(self, request, deadline, emit);
    }
}

/// The MCP process's kernel: a hook that arrives before anything else started it starts it.
impl RenderSource for SharedKernel {
    fn render(
        &self,
        request: &WarmRequest,
        deadline: Instant,
        emit: &mut dyn FnMut(&RenderEvent) -> bool,
    ) {
        match self.get() {
            Ok(kernel) => render_on(kernel, request, deadline, emit),
            Err(reason) => {
                let error = DocumentError::new("worker-unavailable", reason);
                let failed = FlightDecoder::new(request.route.clone(), self.limits()).fail(error);
                for event in failed {
                    emit(&event);
                }
            }
        }
    }
}

fn render_on(
    kernel: &Kernel,
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
        invocation: None,
        input: input.unwrap_or_else(|| Value::Object(Default::default())),
        context: Default::default(),
        providers: Default::default(),
        limits: RenderLimits {
            max_flight_bytes: u64::try_from(kernel.limits().max_bytes).ok(),
            max_elapsed_ms: u64::try_from(
                deadline
                    .saturating_duration_since(Instant::now())
                    .as_millis(),
            )
            .ok(),
        },
    };
    let rendering = match Kernel::render(kernel, invocation, Cancel::new(), deadline) {
        Ok(rendering) => rendering,
        Err(refused) => {
            let error = DocumentError::new(refused.code(), refused.to_string());
            for event in kernel.failed_events(&request.route, error) {
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
