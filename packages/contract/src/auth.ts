// zod/mini: the sign-in pages load these schemas and must stay small.
import { z } from 'zod/mini';
import { EMAIL_PATTERN, Limits, ZStatus, TextChecks } from './common.js';

export const AuthMessages = {
  emailRequired: 'Email is required',
  emailInvalid: 'Email is Invalid',
  passwordRequired: 'Password is required',
  passwordTooShort: `Password must be at least ${Limits.passwordMin} characters`,
  passwordTooLong: `Password must be at most ${Limits.passwordMax} characters`,
  firstNameRequired: 'First Name is required',
  lastNameRequired: 'Last Name is required',
  emptyResetCode: 'Empty Reset Code',
  signInFailedTitle: 'Sigin In Failed',
  registrationFailedTitle: 'Registration Failed',
  mailDeliveryFailedTitle: 'Mail Delivery Failed',
  invalidCredentials: 'Invalid email or password.',
  accountDisabled: 'This account has been disabled. Please contact support.',
  accountNotVerified:
    'This account has not been verified yet. Please follow the link in the verification e-mail we sent you.',
  tooManyAttempts: 'Too many failed sign-in attempts. Please try again in 15 minutes.',
  registrationDisabled: 'Registration is not available on this portal. Please contact the administrator.',
  emailTaken: 'An account with this email already exists.',
  invalidResetCode: 'This password reset link is invalid or has expired.',
  invalidVerificationCode: 'This verification link is invalid or has expired.',
  adminSessionInvalid: 'The administrator session is invalid or has expired.',
  loginAsTicketInvalid: 'This sign-in as a user is invalid, was already used or has expired. Start again from the Users page.',
  loginAsAdminRefused: 'Administrators cannot be signed in as; only customer accounts can.',
  userNotFound: 'No account with this email exists.',
  forgotPasswordSent:
    'If an account exists for this email, we have sent a link to reset the password.',
} as const;

export const UserType = { ADMIN: 'ADMIN', USER: 'USER' } as const;
export const ZUserType = z.enum(['ADMIN', 'USER']);
export type TUserType = z.infer<typeof ZUserType>;

export const UserStatus = { UNVERIFIED: 'UNVERIFIED', ACTIVE: 'ACTIVE', DISABLED: 'DISABLED' } as const;
export const ZUserStatus = z.enum(['UNVERIFIED', 'ACTIVE', 'DISABLED']);
export type TUserStatus = z.infer<typeof ZUserStatus>;

export const ZEmail = z.string({ error: AuthMessages.emailRequired }).check(
  z.trim(),
  z.minLength(1, { error: AuthMessages.emailRequired, abort: true }),
  z.maxLength(Limits.emailMax, { error: AuthMessages.emailInvalid, abort: true }),
  z.regex(EMAIL_PATTERN, { error: AuthMessages.emailInvalid }),
  TextChecks.singleLine(AuthMessages.emailInvalid),
);

/** A password being chosen (register, reset): required, 8..128 characters. */
export const ZNewPassword = z.string({ error: AuthMessages.passwordRequired }).check(
  z.minLength(1, { error: AuthMessages.passwordRequired, abort: true }),
  z.minLength(Limits.passwordMin, { error: AuthMessages.passwordTooShort, abort: true }),
  z.maxLength(Limits.passwordMax, { error: AuthMessages.passwordTooLong }),
);

/** A password being entered at login: required, bounded. */
export const ZPassword = z.string({ error: AuthMessages.passwordRequired }).check(
  z.minLength(1, { error: AuthMessages.passwordRequired, abort: true }),
  z.maxLength(Limits.passwordMax * 4, { error: AuthMessages.invalidCredentials }),
);

export const ZLoginForm = z.object({
  email: ZEmail,
  password: ZPassword,
  rememberMe: z.boolean(),
});
export type TLoginForm = z.infer<typeof ZLoginForm>;

/**
 * Sign in with a password, or (admin login-as) with `adminSessionId`: the spec's field name, which
 * carries a one-time login-as ticket (POST /api/admin/users/login_as), never a session token.
 */
export const ZLoginRequest = z
  .object({
    email: ZEmail,
    password: z.optional(z.string().check(z.maxLength(Limits.passwordMax * 4, { error: AuthMessages.invalidCredentials }))),
    adminSessionId: z.optional(z.string().check(z.minLength(1), z.maxLength(200))),
  })
  .check((ctx) => {
    if (!ctx.value.adminSessionId && !ctx.value.password) {
      ctx.issues.push({ code: 'custom', message: AuthMessages.passwordRequired, path: ['password'], input: ctx.value.password });
    }
  });
export type TLoginRequest = z.infer<typeof ZLoginRequest>;

export const ZLoginResponse = z.object({
  status: ZStatus,
  sessionId: z.optional(z.string()),
  userName: z.optional(z.string()),
  /** ISO 8601, UTC. */
  expiryDate: z.optional(z.string()),
  userType: z.optional(ZUserType),
  adminProxy: z.optional(z.boolean()),
  errors: z.optional(z.array(z.string())),
  failReason: z.optional(z.int()),
});
export type TLoginResponse = z.infer<typeof ZLoginResponse>;

const ZName = (required: string) =>
  z.string({ error: required }).check(
    z.trim(),
    z.minLength(1, { error: required, abort: true }),
    z.maxLength(Limits.nameMax, { error: `${required.replace(' is required', '')} is too long` }),
    TextChecks.singleLine(),
  );

export const ZRegisterRequest = z.object({
  firstName: ZName(AuthMessages.firstNameRequired),
  lastName: ZName(AuthMessages.lastNameRequired),
  companyName: z._default(z.optional(z.string().check(z.trim(), z.maxLength(Limits.nameMax, { error: 'Company Name is too long' }), TextChecks.singleLine())), ''),
  mobileNumber: z._default(
    z.optional(
      z.string().check(
        z.trim(),
        z.maxLength(32, { error: 'Mobile number is too long' }),
        z.regex(/^[+\d\s().-]*$/, { error: 'Mobile number is Invalid' }),
      ),
    ),
    '',
  ),
  email: ZEmail,
  password: ZNewPassword,
});
export type TRegisterRequest = z.input<typeof ZRegisterRequest>;

export const ZEmailVerificationRequest = z.object({
  verificationCode: z.string().check(z.trim(), z.minLength(1, { error: AuthMessages.invalidVerificationCode }), z.maxLength(200)),
  mode: z.literal('verify'),
});
export type TEmailVerificationRequest = z.infer<typeof ZEmailVerificationRequest>;

export const ZEmailVerificationResponse = z.object({
  status: ZStatus,
  email: z.optional(z.string()),
  firstName: z.optional(z.string()),
  displayTitle: z.string(),
  displayMessage: z.string(),
  errors: z.optional(z.array(z.string())),
});
export type TEmailVerificationResponse = z.infer<typeof ZEmailVerificationResponse>;

export const ZForgotPasswordRequest = z.object({ email: ZEmail });
export type TForgotPasswordRequest = z.infer<typeof ZForgotPasswordRequest>;

const ZResetToken = z.string({ error: AuthMessages.emptyResetCode }).check(
  z.trim(),
  z.minLength(1, { error: AuthMessages.emptyResetCode, abort: true }),
  z.maxLength(200, { error: AuthMessages.invalidResetCode }),
);

export const ZResetPasswordRequest = z.discriminatedUnion('mode', [
  z.object({ mode: z.literal('validate'), resetToken: ZResetToken }),
  z.object({ mode: z.literal('reset'), resetToken: ZResetToken, newPassword: ZNewPassword }),
]);
export type TResetPasswordRequest = z.infer<typeof ZResetPasswordRequest>;

export const ZResetPasswordForm = z.object({ newPassword: ZNewPassword });

export const ZResetPasswordResponse = z.object({
  status: ZStatus,
  email: z.optional(z.string()),
  errors: z.optional(z.array(z.string())),
});
export type TResetPasswordResponse = z.infer<typeof ZResetPasswordResponse>;

export const ZStatusAnswer = z.object({
  status: ZStatus,
  errors: z.optional(z.array(z.string())),
  failReason: z.optional(z.int()),
});

export const AuthLimits = {
  sessionHours: 24 * 7,
  verificationCodeHours: 24,
  resetCodeHours: 1,
  maxFailedLogins: 10,
  failedLoginWindowMinutes: 15,
  lockoutMinutes: 15,
  /** A login-as ticket is redeemed once, within this time. */
  loginAsTicketSeconds: 60,
  /** A login-as session lasts at most this long, and never past the administrator's session. */
  loginAsSessionMinutes: 60,
} as const;

/** POST /api/admin/users/login_as (admin): a one-time ticket to sign in as a customer. */
export const ZLoginAsTicketRequest = z.object({ userId: z.int().check(z.positive(), z.maximum(2_147_483_647)) });
export type TLoginAsTicketRequest = z.infer<typeof ZLoginAsTicketRequest>;
export const ZLoginAsTicketResponse = z.object({
  status: ZStatus,
  /** Sent as `adminSessionId` with `email` to POST /api/login, once, before `expiresAt`. */
  ticket: z.string(),
  email: z.string(),
  /** ISO 8601, UTC. */
  expiresAt: z.string(),
});
export type TLoginAsTicketResponse = z.infer<typeof ZLoginAsTicketResponse>;
