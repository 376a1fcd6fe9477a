//! What the warm-socket tests share.

use std::sync::Arc;
use std::time::{Duration, Instant};

use abgen_runtime::warm::{BindError, RenderSource, SocketPath, WarmServer};

/// Binds a warm server at `path`, waiting up to 2 s while the lock still looks held: a server
/// dropped just before is not free for a moment when another test of this process forks a child
/// at that instant (the child shares the lock until it execs). A standby retries the same way.
pub fn bind_when_free(
    path: &SocketPath,
    digest: &str,
    source: Arc<dyn RenderSource>,
) -> WarmServer {
    let until = Instant::now() + Duration::from_secs(2);
    loop {
        match WarmServer::bind(path.clone(), digest, Arc::clone(&source)) {
            Err(BindError::Busy(_)) if Instant::now() < until => {
                std::thread::sleep(Duration::from_millis(20));
            }
            bound => return bound.expect("the warm server binds"),
        }
    }
}
