/** The service's own address as a browser on this machine reaches it: a wildcard HOST is reached as localhost. */
export function browsableOrigin(host: string, port: number): string {
  const name = host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `http://${name}:${port}`;
}

/** What `pickport serve` prints once it listens: where a person goes next, one line each. */
export function startMessage(host: string, port: number): string {
  const origin = browsableOrigin(host, port);
  return [`Console:       ${origin}/console`, `API reference: ${origin}/docs`].join('\n');
}
