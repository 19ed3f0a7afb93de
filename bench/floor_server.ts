// The machine's HTTP floor: a bare Node server answering a fixed JSON body, run as its own process.
import { createServer } from 'node:http';

const body = JSON.stringify({ result: 'success', msg: '', user_id: 1, email: 'floor@example.com', full_name: 'Floor' });
const server = createServer((_req, res) => {
  res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => {
  const addr = server.address();
  process.stdout.write(`listening ${typeof addr === 'object' && addr ? addr.port : 0}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
