import Fastify from 'fastify';
import { load, startBenchService, type Measurement } from '../harness';

/** The HTTP core's overhead: the service's GET /health against a bare Fastify route doing the same query. */
export default async function core(): Promise<Measurement[]> {
  const service = await startBenchService();
  const bare = Fastify();
  bare.get('/health', async () => {
    await service.database.db.selectNoFrom((eb) => eb.lit(1).as('one')).execute();
    return { status: 'ok' };
  });
  const bareUrl = await bare.listen({ port: 0, host: '127.0.0.1' });
  try {
    const baseline = await load({ url: `${bareUrl}/health` });
    const measured = await load({ url: `${service.url}/api/v1/public/health` });
    return [
      {
        name: 'GET /health throughput, 32 connections',
        unit: 'req/s',
        service: measured.requestsPerSecond,
        baseline: baseline.requestsPerSecond,
        higherIsBetter: true,
      },
      { name: 'GET /health p99 latency', unit: 'ms', service: measured.p99Ms, baseline: baseline.p99Ms, higherIsBetter: false },
    ];
  } finally {
    await bare.close();
    await service.close();
  }
}
