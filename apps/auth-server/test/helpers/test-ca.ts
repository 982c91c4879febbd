// A certificate authority made for one test run (node-forge), a server certificate it signs for the names and
// addresses a test serves on, and HTTPS requests from the test itself that trust it. The app trusts it through
// deps.outboundHttpsAgent (its `ca`), as NODE_EXTRA_CA_CERTS is read only when a process starts.
import { mkdtempSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import forge from 'node-forge';

export interface TestCa {
  caPem: string;
  /** Key and certificate (PEM) for these DNS names and IP addresses, signed by the CA. */
  issue(names: string[], addresses: string[]): { keyPem: string; certPem: string; keyPath: string; certPath: string };
  /** An https request that trusts the CA; never follows redirects. */
  request(url: string, init?: { method?: string; headers?: Record<string, string>; body?: string }): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>;
}

function certificate(publicKey: forge.pki.PublicKey, subject: string, issuer: { name: string; key: forge.pki.rsa.PrivateKey }, extensions: object[]): forge.pki.Certificate {
  const cert = forge.pki.createCertificate();
  cert.publicKey = publicKey;
  cert.serialNumber = `01${forge.util.bytesToHex(forge.random.getBytesSync(8))}`;
  cert.validity.notBefore = new Date(Date.now() - 86_400_000);
  cert.validity.notAfter = new Date(Date.now() + 30 * 86_400_000);
  cert.setSubject([{ name: 'commonName', value: subject }]);
  cert.setIssuer([{ name: 'commonName', value: issuer.name }]);
  cert.setExtensions(extensions);
  cert.sign(issuer.key, forge.md.sha256.create());
  return cert;
}

export function createTestCa(): TestCa {
  const dir = mkdtempSync(path.join(tmpdir(), 'kz-test-ca-'));
  const caKeys = forge.pki.rsa.generateKeyPair(2048);
  const ca = certificate(caKeys.publicKey, 'Keyzone Test CA', { name: 'Keyzone Test CA', key: caKeys.privateKey }, [
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
  ]);
  const caPem = forge.pki.certificateToPem(ca);
  const agent = new https.Agent({ ca: caPem, keepAlive: false });
  let issued = 0;
  return {
    caPem,
    issue(names, addresses) {
      const keys = forge.pki.rsa.generateKeyPair(2048);
      const cert = certificate(keys.publicKey, names[0] ?? addresses[0] ?? 'server', { name: 'Keyzone Test CA', key: caKeys.privateKey }, [
        { name: 'basicConstraints', cA: false },
        { name: 'extKeyUsage', serverAuth: true },
        { name: 'subjectAltName', altNames: [...names.map((value) => ({ type: 2, value })), ...addresses.map((ip) => ({ type: 7, ip }))] },
      ]);
      const keyPem = forge.pki.privateKeyToPem(keys.privateKey);
      const certPem = forge.pki.certificateToPem(cert);
      issued += 1;
      const keyPath = path.join(dir, `server-${issued}.key`);
      const certPath = path.join(dir, `server-${issued}.crt`);
      writeFileSync(keyPath, keyPem);
      writeFileSync(certPath, certPem);
      return { keyPem, certPem, keyPath, certPath };
    },
    request(url, init = {}) {
      return new Promise((resolve, reject) => {
        const req = https.request(url, { method: init.method ?? 'GET', headers: init.headers, agent }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
        });
        req.on('error', reject);
        req.end(init.body);
      });
    },
  };
}
