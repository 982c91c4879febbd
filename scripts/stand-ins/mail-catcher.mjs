// The mail catcher stand-in (see scripts/container-stand-ins.sh): accepts every message over SMTP on 1025 and
// shows them on 8025 with the parts of mailpit's API the container test reads:
//   GET /api/v1/messages          {total, count, messages: [{ID, MessageID, From, To, Subject, Created, Size}]}
//   GET /api/v1/message/<ID>/raw  the message as received
//   DELETE /api/v1/messages       forgets every message
//   GET /livez, GET /             liveness and a plain web page listing the messages
// It keeps the newest 1,000 messages in memory. No dependencies: it runs on the bare node stand-in.
import { createServer as createTcpServer } from 'node:net';
import { createServer as createHttpServer } from 'node:http';
import { randomUUID } from 'node:crypto';

const SMTP_PORT = Number(process.env.MP_SMTP_PORT ?? 1025);
const HTTP_PORT = Number(process.env.MP_UI_PORT ?? 8025);
const KEEP = 1000;
const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;
const messages = [];

function decodeEncodedWords(value) {
  return value.replace(/=\?([^?]+)\?([BbQq])\?([^?]*)\?=/g, (_all, _charset, encoding, text) =>
    encoding.toUpperCase() === 'B'
      ? Buffer.from(text, 'base64').toString('utf8')
      : Buffer.from(
          text.replace(/_/g, ' ').replace(/=([0-9A-Fa-f]{2})/g, (_m, hex) => String.fromCharCode(parseInt(hex, 16))),
          'latin1',
        ).toString('utf8'),
  );
}

function headers(raw) {
  const head = raw.split(/\r?\n\r?\n/, 1)[0].replace(/\r?\n[ \t]+/g, ' ');
  const found = {};
  for (const line of head.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) found[line.slice(0, colon).trim().toLowerCase()] ??= decodeEncodedWords(line.slice(colon + 1).trim());
  }
  return found;
}

function address(text) {
  const angle = /^(.*)<([^>]+)>\s*$/.exec(text);
  return angle ? { Name: angle[1].trim().replace(/^"|"$/g, ''), Address: angle[2] } : { Name: '', Address: text.trim() };
}

function store(envelope, raw) {
  const h = headers(raw);
  messages.unshift({
    ID: randomUUID(),
    MessageID: (h['message-id'] ?? '').replace(/^<|>$/g, ''),
    From: address(h.from ?? envelope.from),
    To: (h.to ?? envelope.to.join(', ')).split(',').filter(Boolean).map(address),
    Subject: h.subject ?? '',
    Created: new Date().toISOString(),
    Size: Buffer.byteLength(raw),
    raw,
  });
  messages.length = Math.min(messages.length, KEEP);
}

function smtpSession(socket) {
  const reply = (line) => socket.write(`${line}\r\n`);
  let envelope = { from: '', to: [] };
  let buffer = '';
  let data = null;
  let login = 0;
  reply('220 mail-catcher ESMTP');
  socket.setEncoding('utf8');
  socket.on('error', () => socket.destroy());
  socket.on('data', (chunk) => {
    buffer += chunk;
    for (;;) {
      if (data !== null) {
        const end = buffer.indexOf('\r\n.\r\n');
        if (end < 0) {
          if (data.length + buffer.length > MAX_MESSAGE_BYTES) return socket.destroy();
          data += buffer.slice(0, Math.max(0, buffer.length - 4));
          buffer = buffer.slice(Math.max(0, buffer.length - 4));
          return;
        }
        const raw = (data + buffer.slice(0, end)).replace(/^\.\./gm, '.');
        buffer = buffer.slice(end + 5);
        data = null;
        store(envelope, raw);
        envelope = { from: '', to: [] };
        reply('250 2.0.0 Ok: queued');
        continue;
      }
      const eol = buffer.indexOf('\r\n');
      if (eol < 0) return;
      const line = buffer.slice(0, eol);
      buffer = buffer.slice(eol + 2);
      if (login > 0) {
        login = login === 1 ? (reply('334 UGFzc3dvcmQ6'), 2) : (reply('235 2.7.0 Authentication successful'), 0);
        continue;
      }
      const verb = line.slice(0, 4).toUpperCase();
      const argument = line.slice(4).trim();
      if (verb === 'EHLO') {
        socket.write('250-mail-catcher\r\n250-SIZE 10485760\r\n250-8BITMIME\r\n250-SMTPUTF8\r\n250 AUTH PLAIN LOGIN\r\n');
      } else if (verb === 'HELO') reply('250 mail-catcher');
      else if (verb === 'AUTH') {
        if (/^LOGIN$/i.test(argument)) (login = 1), reply('334 VXNlcm5hbWU6');
        else reply('235 2.7.0 Authentication successful');
      } else if (verb === 'MAIL') {
        envelope = { from: (/<([^>]*)>/.exec(argument) ?? [])[1] ?? '', to: [] };
        reply('250 2.1.0 Ok');
      } else if (verb === 'RCPT') {
        envelope.to.push((/<([^>]*)>/.exec(argument) ?? [])[1] ?? '');
        reply('250 2.1.5 Ok');
      } else if (verb === 'DATA') {
        if (envelope.to.length === 0) reply('503 5.5.1 Error: need RCPT command');
        else (data = ''), reply('354 End data with <CR><LF>.<CR><LF>');
      } else if (verb === 'RSET') (envelope = { from: '', to: [] }), reply('250 2.0.0 Ok');
      else if (verb === 'NOOP') reply('250 2.0.0 Ok');
      else if (verb === 'QUIT') return void socket.end('221 2.0.0 Bye\r\n');
      else reply('502 5.5.2 Error: command not recognized');
    }
  });
}

function summary({ raw: _raw, ...rest }) {
  return rest;
}

const escapeHtml = (text) => text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);

function handleHttp(req, res) {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const send = (status, type, body) => res.writeHead(status, { 'content-type': type }).end(body);
  const rawMatch = /^\/api\/v1\/message\/([0-9a-f-]+)\/raw$/.exec(url.pathname);
  if (req.method === 'GET' && url.pathname === '/api/v1/messages') {
    send(200, 'application/json', JSON.stringify({ total: messages.length, count: messages.length, messages: messages.map(summary) }));
  } else if (req.method === 'DELETE' && url.pathname === '/api/v1/messages') {
    messages.length = 0;
    send(200, 'text/plain', 'ok');
  } else if (req.method === 'GET' && rawMatch) {
    const found = messages.find((m) => m.ID === rawMatch[1]);
    if (found) send(200, 'text/plain; charset=utf-8', found.raw);
    else send(404, 'text/plain', 'message not found');
  } else if (req.method === 'GET' && (url.pathname === '/livez' || url.pathname === '/readyz')) {
    send(200, 'text/plain', 'ok');
  } else if (req.method === 'GET' && url.pathname === '/') {
    const rows = messages
      .map((m) => `<tr><td>${escapeHtml(m.Created)}</td><td>${escapeHtml(m.To.map((t) => t.Address).join(', '))}</td>` +
        `<td><a href="/api/v1/message/${m.ID}/raw">${escapeHtml(m.Subject || '(no subject)')}</a></td></tr>`)
      .join('');
    send(200, 'text/html; charset=utf-8', `<!doctype html><title>Mail</title><h1>${messages.length} messages</h1>` +
      `<table><tr><th>Received</th><th>To</th><th>Subject</th></tr>${rows}</table>`);
  } else send(404, 'text/plain', 'not found');
}

const smtp = createTcpServer(smtpSession).listen(SMTP_PORT, '0.0.0.0');
const http = createHttpServer(handleHttp).listen(HTTP_PORT, '0.0.0.0');
console.log(JSON.stringify({ msg: 'mail catcher listening', smtp: SMTP_PORT, http: HTTP_PORT }));
process.on('SIGTERM', () => {
  smtp.close();
  http.close();
  http.closeAllConnections();
  process.exit(0);
});
