import { z } from 'zod';
import { EMAIL_PATTERN, Limits, ZStatus } from './common.js';

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

export const ZEmail = z
  .string({ error: AuthMessages.emailRequired })
  .trim()
  .min(1, { error: AuthMessages.emailRequired, abort: true })
  .max(Limits.emailMax, { error: AuthMessages.emailInvalid, abort: true })
  .regex(EMAIL_PATTERN, { error: AuthMessages.emailInvalid });

/** A password being chosen (register, reset): required, 8..128 characters. */
export const ZNewPassword = z
  .string({ error: AuthMessages.passwordRequired })
  .min(1, { error: AuthMessages.passwordRequired, abort: true })
  .min(Limits.passwordMin, { error: AuthMessages.passwordTooShort, abort: true })
  .max(Limits.passwordMax, { error: AuthMessages.passwordTooLong });

/** A password being entered at login: required, bounded. */
export const ZPassword = z
  .string({ error: AuthMessages.passwordRequired })
  .min(1, { error: AuthMessages.passwordRequired, abort: true })
  .max(Limits.passwordMax * 4, { error: AuthMessages.invalidCredentials });

export const ZLoginForm = z.object({
  email: ZEmail,
  password: ZPassword,
  rememberMe: z.boolean(),
});
export type TLoginForm = z.infer<typeof ZLoginForm>;

/** Sign in with a password, or (admin login-as) with the live session id of an administrator. */
export const ZLoginRequest = z
  .object({
    email: ZEmail,
    password: z.string().max(Limits.passwordMax * 4, { error: AuthMessages.invalidCredentials }).optional(),
    adminSessionId: z.string().min(1).max(200).optional(),
  })
  .check((ctx) => {
    if (!ctx.value.adminSessionId && !ctx.value.password) {
      ctx.issues.push({ code: 'custom', message: AuthMessages.passwordRequired, path: ['password'], input: ctx.value.password });
    }
  });
export type TLoginRequest = z.infer<typeof ZLoginRequest>;

export const ZLoginResponse = z.object({
  status: ZStatus,
  sessionId: z.string().optional(),
  userName: z.string().optional(),
  /** ISO 8601, UTC. */
  expiryDate: z.string().optional(),
  userType: ZUserType.optional(),
  adminProxy: z.boolean().optional(),
  errors: z.array(z.string()).optional(),
  failReason: z.number().int().optional(),
});
export type TLoginResponse = z.infer<typeof ZLoginResponse>;

const ZName = (required: string) =>
  z
    .string({ error: required })
    .trim()
    .min(1, { error: required, abort: true })
    .max(Limits.nameMax, { error: `${required.replace(' is required', '')} is too long` });

export const ZRegisterRequest = z.object({
  firstName: ZName(AuthMessages.firstNameRequired),
  lastName: ZName(AuthMessages.lastNameRequired),
  companyName: z.string().trim().max(Limits.nameMax, { error: 'Company Name is too long' }).optional().default(''),
  mobileNumber: z
    .string()
    .trim()
    .max(32, { error: 'Mobile number is too long' })
    .regex(/^[+\d\s().-]*$/, { error: 'Mobile number is Invalid' })
    .optional()
    .default(''),
  email: ZEmail,
  password: ZNewPassword,
});
export type TRegisterRequest = z.input<typeof ZRegisterRequest>;

export const ZEmailVerificationRequest = z.object({
  verificationCode: z.string().trim().min(1, { error: AuthMessages.invalidVerificationCode }).max(200),
  mode: z.literal('verify'),
});
export type TEmailVerificationRequest = z.infer<typeof ZEmailVerificationRequest>;

export const ZEmailVerificationResponse = z.object({
  status: ZStatus,
  email: z.string().optional(),
  firstName: z.string().optional(),
  displayTitle: z.string(),
  displayMessage: z.string(),
  errors: z.array(z.string()).optional(),
});
export type TEmailVerificationResponse = z.infer<typeof ZEmailVerificationResponse>;

export const ZForgotPasswordRequest = z.object({ email: ZEmail });
export type TForgotPasswordRequest = z.infer<typeof ZForgotPasswordRequest>;

const ZResetToken = z
  .string({ error: AuthMessages.emptyResetCode })
  .trim()
  .min(1, { error: AuthMessages.emptyResetCode, abort: true })
  .max(200, { error: AuthMessages.invalidResetCode });

export const ZResetPasswordRequest = z.discriminatedUnion('mode', [
  z.object({ mode: z.literal('validate'), resetToken: ZResetToken }),
  z.object({ mode: z.literal('reset'), resetToken: ZResetToken, newPassword: ZNewPassword }),
]);
export type TResetPasswordRequest = z.infer<typeof ZResetPasswordRequest>;

export const ZResetPasswordForm = z.object({ newPassword: ZNewPassword });

export const ZResetPasswordResponse = z.object({
  status: ZStatus,
  email: z.string().optional(),
  errors: z.array(z.string()).optional(),
});
export type TResetPasswordResponse = z.infer<typeof ZResetPasswordResponse>;

export const ZStatusAnswer = z.object({
  status: ZStatus,
  errors: z.array(z.string()).optional(),
  failReason: z.number().int().optional(),
});

export const AuthLimits = {
  sessionHours: 24 * 7,
  verificationCodeHours: 24,
  resetCodeHours: 1,
  maxFailedLogins: 10,
  failedLoginWindowMinutes: 15,
  lockoutMinutes: 15,
} as const;
