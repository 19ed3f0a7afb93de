// Every route of the API, one file per domain.
import type { Router } from '../router.js';
import { registerServerRoutes } from './server.js';
import { registerAuthRoutes } from './auth.js';
import { registerUserRoutes } from './users.js';
import { registerChannelRoutes } from './channels.js';
import { registerEventRoutes } from './events.js';
import { registerMessageRoutes } from './messages.js';
import { registerRealmRoutes } from './realm.js';
import { registerDraftRoutes } from './drafts.js';
import { registerScheduledRoutes } from './scheduled.js';
import { registerSettingsRoutes } from './settings.js';
import { registerNavigationViewRoutes } from './navigation_views.js';
import { registerChannelFolderRoutes } from './channel_folders.js';
import { registerDeviceRoutes } from './devices.js';
import { registerCallRoutes } from './calls.js';
import { registerPresenceRoutes } from './presence.js';
import { registerUserGroupRoutes } from './user_groups.js';
import { registerTopicRoutes } from './topics.js';
import { registerReminderRoutes } from './reminders.js';

export function registerAllRoutes(r: Router): void {
  registerServerRoutes(r);
  registerAuthRoutes(r);
  registerUserRoutes(r);
  registerChannelRoutes(r);
  registerEventRoutes(r);
  registerMessageRoutes(r);
  registerRealmRoutes(r);
  registerDraftRoutes(r);
  registerScheduledRoutes(r);
  registerSettingsRoutes(r);
  registerNavigationViewRoutes(r);
  registerChannelFolderRoutes(r);
  registerDeviceRoutes(r);
  registerCallRoutes(r);
  registerPresenceRoutes(r);
  registerUserGroupRoutes(r);
  registerTopicRoutes(r);
  registerReminderRoutes(r);
}
