// A frame of another origin beside the App: it forges host frames to the App by name. Bundled
// and served by browser.mjs on a second loopback origin.
window.forge = (message) => {
  window.parent.frames.app.postMessage(message, '*');
};
