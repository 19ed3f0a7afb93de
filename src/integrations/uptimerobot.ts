// Uptime Robot: a monitor going down or coming back up. The webhook's JSON is written by the user
// in Uptime Robot's settings from its *alertDetails*-style variables, so missing fields are likely.
import { MisconfiguredPayload, UnsupportedEvent, Wild, type Integration } from './core.js';

export const uptimerobot: Integration = {
  name: 'uptimerobot',
  displayName: 'UptimeRobot',
  handle(req) {
    const p = new Wild(req.body);
    const field = (k: string) => {
      const v = p.opt(k);
      if (v === undefined) throw new MisconfiguredPayload('Uptime Robot');
      return typeof v.value === 'string' ? v.value : String(v.value);
    };
    const name = field('monitor_friendly_name');
    const type = field('alert_type_friendly_name');
    let content: string;
    if (type === 'Up') {
      content = `${name} (${field('monitor_url')}) is back UP (${field('alert_details')}).\nIt was down for ${field('alert_friendly_duration')}.`;
    } else if (type === 'Down') {
      content = `${name} (${field('monitor_url')}) is DOWN (${field('alert_details')}).`;
    } else {
      throw new UnsupportedEvent('UptimeRobot', type);
    }
    return [{ topic: name, content, eventType: type.toLowerCase() }];
  },
};
