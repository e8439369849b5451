import { renderMailHtml, type MailMessage } from '../../plugins/mail.js';

export function verificationMail(to: string, firstName: string, link: string): MailMessage {
  const paragraphs = [
    `Hello ${firstName},`,
    'Welcome to Persona Studio. Please confirm your e-mail address to activate your account.',
    'The link is valid for 24 hours. If you did not create an account, you can ignore this e-mail.',
  ];
  return {
    to,
    subject: 'Verify your Persona Studio e-mail address',
    text: `${paragraphs.join('\n\n')}\n\nVerify your e-mail: ${link}\n`,
    html: renderMailHtml({ heading: 'Verify your e-mail address', paragraphs, action: { label: 'Verify e-mail', url: link } }),
  };
}

export function resetMail(to: string, firstName: string, link: string): MailMessage {
  const paragraphs = [
    `Hello ${firstName},`,
    'Someone asked to reset the password of your Persona Studio account.',
    'The link is valid for 1 hour and can be used once. If it was not you, ignore this e-mail: your password stays as it is.',
  ];
  return {
    to,
    subject: 'Reset your Persona Studio password',
    text: `${paragraphs.join('\n\n')}\n\nReset your password: ${link}\n`,
    html: renderMailHtml({ heading: 'Reset your password', paragraphs, action: { label: 'Reset password', url: link } }),
  };
}

export function accountExistsMail(to: string, firstName: string, resetLink: string): MailMessage {
  const paragraphs = [
    `Hello ${firstName},`,
    'Someone tried to register a new Persona Studio account with this e-mail address, which already has an account.',
    'If it was you and you forgot your password, you can reset it (valid for 1 hour). Otherwise you can ignore this e-mail.',
  ];
  return {
    to,
    subject: 'You already have a Persona Studio account',
    text: `${paragraphs.join('\n\n')}\n\nReset your password: ${resetLink}\n`,
    html: renderMailHtml({ heading: 'You already have an account', paragraphs, action: { label: 'Reset password', url: resetLink } }),
  };
}
