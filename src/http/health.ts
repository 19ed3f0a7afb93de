// GET /health: what a load balancer asks before sending a process work. It fails (503) once the
// process has begun shutting down, so the balancer moves on before the process stops listening,
// and when the database cannot be read.
import type { FastifyInstance } from 'fastify';
import type { Services } from '../services.js';
import { countRealms } from '../store/realms.js';

export function registerHealth(app: FastifyInstance, services: Services): void {
  app.get('/health', async (_request, reply) => {
    reply.header('Cache-Control', 'no-store');
    if (services.draining) return reply.status(503).send({ result: 'error', msg: 'Server is shutting down', code: 'SERVER_DRAINING' });
    // A database that fails is a reason to take the process out; one that is merely slow (every
    // pooled connection busy under load) is not: after a second the check passes, so a busy cluster
    // is not emptied of every process by its balancer's check timeouts.
    let timer: NodeJS.Timeout | undefined;
    const busy = new Promise<'busy'>((resolve) => (timer = setTimeout(() => resolve('busy'), 1000)));
    try {
      await Promise.race([countRealms(services.database.db), busy]);
    } catch {
      return reply.status(503).send({ result: 'error', msg: 'Database unavailable', code: 'DATABASE_UNAVAILABLE' });
    } finally {
      clearTimeout(timer);
    }
    return reply.send({ result: 'success', msg: '' });
  });
}
