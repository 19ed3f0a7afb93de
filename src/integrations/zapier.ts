// Zapier and IFTTT: the zap or applet writes the topic and the content itself.
import { MalformedPayload, Wild, type Integration } from './core.js';

function topicAndContent(p: Wild): { topic: string; content: string } {
  const topic = p.opt('topic')?.str() ?? p.opt('subject')?.str();
  if (topic === undefined) throw new MalformedPayload("Topic can't be empty");
  const content = p.opt('content')?.str();
  if (content === undefined) throw new MalformedPayload("Content can't be empty");
  return { topic, content };
}

export const zapier: Integration = {
  name: 'zapier',
  displayName: 'Zapier',
  // Zapier's app checks a key with {"type": "auth"} and labels the connection with the bot.
  isAuthProbe: (req) => new Wild(req.body).opt('type')?.value === 'auth',
  handle: (req) => [topicAndContent(new Wild(req.body))],
};

export const ifttt: Integration = {
  name: 'ifttt',
  displayName: 'IFTTT',
  handle(req) {
    const p = new Wild(req.body);
    // IFTTT's integration reports any field of the wrong type as one "Malformed payload".
    const text = (w: Wild | undefined) => {
      if (w !== undefined && typeof w.value !== 'string') throw new MalformedPayload('Malformed payload');
      return w?.value as string | undefined;
    };
    const topic = text(p.opt('topic')) ?? text(p.opt('subject'));
    const content = text(p.opt('content'));
    if (topic === undefined) throw new MalformedPayload("Topic can't be empty");
    if (content === undefined) throw new MalformedPayload("Content can't be empty");
    return [{ topic, content }];
  },
};
