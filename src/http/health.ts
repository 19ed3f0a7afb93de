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
    try {
      await countRealms(services.database.db);
    } catch {
      return reply.status(503).send({ result: 'error', msg: 'Database unavailable', code: 'DATABASE_UNAVAILABLE' });
    }
    return reply.send({ result: 'success', msg: '' });
  });
}
