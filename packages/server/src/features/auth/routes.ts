import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  ZEmailVerificationRequest,
  ZEmailVerificationResponse,
  ZForgotPasswordRequest,
  ZLoginAsTicketRequest,
  ZLoginAsTicketResponse,
  ZLoginRequest,
  ZLoginResponse,
  ZRegisterRequest,
  ZResetPasswordRequest,
  ZResetPasswordResponse,
  ZStatusAnswer,
} from '@persona/contract';
import { requireAuth, type AuthGuards } from '../../plugins/auth.js';
import type { AuthService } from './service.js';

/** Per-IP ceiling on the unauthenticated auth calls, on top of the per-account lock-out. */
const ipLimit = { rateLimit: { max: 60, timeWindow: '1 minute' } };

export function authRoutes(deps: { auth: AuthService; guards: AuthGuards }) {
  const { auth, guards } = deps;
  return async function plugin(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<ZodTypeProvider>();
    const meta = (req: { ip: string; headers: Record<string, unknown> }) => ({
      ip: req.ip,
      userAgent: typeof req.headers['user-agent'] === 'string' ? req.headers['user-agent'] : undefined,
    });

    app.post(
      '/api/login',
      { onRequest: guards.appKey, config: ipLimit, schema: { tags: ['auth'], body: ZLoginRequest, response: { 200: ZLoginResponse } } },
      async (req) => auth.login(req.body, meta(req)),
    );

    app.get('/api/logout', { onRequest: guards.session, schema: { tags: ['auth'], response: { 200: ZStatusAnswer } } }, async (req) => {
      await auth.logout(requireAuth(req));
      return { status: 'OK' as const, errors: [] };
    });

    // Admin login-as: a one-time ticket, redeemed in the body of POST /api/login (never a URL).
    app.post(
      '/api/admin/users/login_as',
      { onRequest: guards.admin, schema: { tags: ['admin'], body: ZLoginAsTicketRequest, response: { 200: ZLoginAsTicketResponse } } },
      async (req, reply) => {
        reply.header('cache-control', 'no-store');
        return auth.createLoginAsTicket(requireAuth(req), req.body.userId);
      },
    );

    app.post(
      '/api/register',
      { onRequest: guards.appKey, config: ipLimit, schema: { tags: ['auth'], body: ZRegisterRequest, response: { 200: ZStatusAnswer } } },
      async (req) => {
        await auth.register(req.body);
        return { status: 'OK' as const, errors: [] };
      },
    );

    app.post(
      '/api/email_verification',
      { onRequest: guards.appKey, config: ipLimit, schema: { tags: ['auth'], body: ZEmailVerificationRequest, response: { 200: ZEmailVerificationResponse } } },
      async (req) => auth.verifyEmail(req.body.verificationCode),
    );

    app.post(
      '/api/forgot_password',
      { onRequest: guards.appKey, config: ipLimit, schema: { tags: ['auth'], body: ZForgotPasswordRequest, response: { 200: ZStatusAnswer } } },
      async (req) => {
        await auth.forgotPassword(req.body.email);
        return { status: 'OK' as const, errors: [] };
      },
    );

    app.post(
      '/api/reset_password',
      { onRequest: guards.appKey, config: ipLimit, schema: { tags: ['auth'], body: ZResetPasswordRequest, response: { 200: ZResetPasswordResponse } } },
      async (req) =>
        req.body.mode === 'validate'
          ? auth.validateResetCode(req.body.resetToken)
          : auth.resetPassword(req.body.resetToken, req.body.newPassword),
    );
  };
}
