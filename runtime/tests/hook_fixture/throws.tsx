// stop: the handler throws before rendering anything.
export default Object.freeze({
  kind: 'event',
  options: { failure: 'closed' },
  handler(): never {
    throw new Error('the audit backend is unreachable');
  },
});
