// What an outgoing-webhook bot is sent: Zulip's JSON (the message as GET /messages shows it, in
// Markdown, with its HTML as rendered_content) or the form fields of Slack's outgoing webhooks.
import type { User } from '../store/users.js';
import type { BotService } from '../store/outgoing_webhooks.js';
import { apiEmail } from './users.js';
import type { RealmEmailDomains } from '../lib/realm_email_domains.js';

export function zulipWebhookPayload(bot: User, domains: RealmEmailDomains, service: BotService, message: Record<string, unknown>, trigger: string): Record<string, unknown> {
  return {
    data: message.content,
    message,
    bot_email: apiEmail(bot, domains),
    bot_full_name: bot.full_name,
    token: service.token,
    trigger,
  };
}

/** Slack's legacy outgoing-webhook fields, with Zulip's prefixes on ids (T realm, C channel, U user). */
export function slackWebhookForm(bot: User, service: BotService, message: Record<string, unknown>, trigger: string, realmId: number, realmHost: string): Array<[string, string]> {
  const ts = String(message.timestamp);
  return [
    ['token', service.token],
    ['team_id', `T${realmId}`],
    ['team_domain', realmHost],
    ['channel_id', `C${message.stream_id}`],
    ['channel_name', String(message.display_recipient)],
    ['thread_ts', ts],
    ['timestamp', ts],
    ['user_id', `U${message.sender_id}`],
    ['user_name', String(message.sender_full_name)],
    ['text', String(message.content)],
    ['trigger_word', trigger],
    ['service_id', String(bot.id)],
  ];
}
