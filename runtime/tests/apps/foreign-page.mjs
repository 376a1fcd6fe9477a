// A page of another origin beside the App: it forges host frames to the App, which it reaches
// from the window that embeds it (or opened it) through that window's frames by `path` (names
// or indexes: `['app']` in the ext-apps test host, `[0, 0]` in `abgen-host web`, where the App is
// the inner frame of the sandbox proxy). Bundled and served on a loopback origin of its own by
// the drivers.
window.forge = (message, path) => {
  const app = path.reduce((window, step) => window.frames[step], window.opener ?? window.parent);
  app.postMessage(message, '*');
};
