//! The render worker's files: the loader Node runs, `runtime/worker.mjs`, and, beside it, the
//! CommonJS bundle it compiles with V8's code cache, `runtime/worker.bundle.cjs`.
//!
//! The bundler (`packages/runtime/scripts/code-cache.mjs`, `wrapWithCodeCache`) hands over one
//! module: the loader, then `run(ownBundle());` and the bundle in a trailing block comment. Node's
//! module loader compiles and decodes the whole of that file before the loader runs, comment and
//! all (~110 ms for the 4 MB worker of a 1,000-route plugin), so [`split_worker`] moves the
//! bundle to its own file and the loader reads it from there (`siblingBundle()`).
//!
//! Invariant: a worker this module does not recognise (an ES module bundle, a bundle carried as a
//! JSON string, a loader without `siblingBundle`) is shipped whole, as the bundler wrote it.

use memchr::memmem;

/// Where the split worker's CommonJS bundle sits in every artifact (the loader's name with
/// `.bundle.cjs` for `.mjs`, as `siblingBundle()` derives it).
pub const WORKER_COMMONJS_PATH: &str = "runtime/worker.bundle.cjs";

/// The call that runs the bundle carried in the loader's own trailing comment, and that comment's
/// opening line.
const OWN_BUNDLE_TAIL: &[u8] = b"\nrun(ownBundle());\n/*abgen-commonjs-bundle\n";
/// The comment's end.
const BUNDLE_END: &[u8] = b"\n*/\n";
/// The call that runs the bundle read from [`WORKER_COMMONJS_PATH`], naming it in stack traces.
const SIBLING_BUNDLE_CALL: &[u8] = b"\nrun(...siblingBundle());\n";
/// What a loader able to read its sibling defines.
const SIBLING_BUNDLE_FUNCTION: &[u8] = b"function siblingBundle(";

/// The worker as two files, when it is one this module recognises.
#[derive(Debug, PartialEq, Eq)]
pub struct SplitWorker {
    /// `runtime/worker.mjs`: the loader, ending in [`SIBLING_BUNDLE_CALL`].
    pub loader: Vec<u8>,
    /// [`WORKER_COMMONJS_PATH`]: the bundle, without its comment's markers.
    pub bundle: Vec<u8>,
}

/// `worker` as a loader and its bundle, or `None` to ship it whole (see the module's invariant).
pub fn split_worker(worker: &[u8]) -> Option<SplitWorker> {
    let tail = memmem::find(worker, OWN_BUNDLE_TAIL)?;
    let head = &worker[..tail];
    memmem::find(head, SIBLING_BUNDLE_FUNCTION)?;
    let bundle = worker[tail + OWN_BUNDLE_TAIL.len()..].strip_suffix(BUNDLE_END)?;
    let mut loader = Vec::with_capacity(head.len() + SIBLING_BUNDLE_CALL.len());
    loader.extend_from_slice(head);
    loader.extend_from_slice(SIBLING_BUNDLE_CALL);
    Some(SplitWorker {
        loader,
        bundle: bundle.to_vec(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOADER: &str =
        "import x from 'y';\nfunction run(source, file) {}\nfunction siblingBundle() {}";

    #[test]
    fn a_commented_bundle_moves_beside_the_loader() {
        let worker = format!(
            "{LOADER}\nrun(ownBundle());\n/*abgen-commonjs-bundle\nmodule.exports = 1;\n*/\n"
        );
        let split = split_worker(worker.as_bytes()).expect("split");
        assert_eq!(
            String::from_utf8(split.loader).unwrap(),
            format!("{LOADER}\nrun(...siblingBundle());\n")
        );
        assert_eq!(split.bundle, b"module.exports = 1;");
    }

    #[test]
    fn the_bundle_keeps_text_that_looks_like_the_markers() {
        let bundle = "a('\\nrun(ownBundle());\\n');\n/*abgen-commonjs-bundle\nb();";
        let worker =
            format!("{LOADER}\nrun(ownBundle());\n/*abgen-commonjs-bundle\n{bundle}\n*/\n");
        let split = split_worker(worker.as_bytes()).expect("split");
        assert_eq!(split.bundle, bundle.as_bytes());
    }

    #[test]
    fn other_workers_ship_whole() {
        let json_string = format!("{LOADER}\nrun(\"module.exports = '*/';\");\n");
        let module = "import { a } from 'b';\nexport const c = a;\n".to_owned();
        let old_loader =
            "function run(source) {}\nrun(ownBundle());\n/*abgen-commonjs-bundle\nx();\n*/\n"
                .to_owned();
        let unterminated = format!("{LOADER}\nrun(ownBundle());\n/*abgen-commonjs-bundle\nx();");
        for worker in [json_string, module, old_loader, unterminated] {
            assert_eq!(split_worker(worker.as_bytes()), None, "{worker}");
        }
    }
}
