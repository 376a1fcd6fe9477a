// The least a Node hook can do: read the payload on stdin, parse it, print one JSON answer.
let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  input += chunk;
});
process.stdin.on('end', () => {
  const payload = JSON.parse(input);
  process.stdout.write(
    JSON.stringify({ decision: 'block', reason: `Shelve the new books first (${payload.hook_event_name}).` }) + '\n',
  );
});
