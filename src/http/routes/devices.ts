// Push device tokens, under the founding document's names and Zulip's current ones, and API keys.
import type { AuthedContext, Router } from '../router.js';
import { addPushToken, APNS, GCM, regenerateApiKey, removePushToken } from '../../actions/devices.js';

export function registerDeviceRoutes(r: Router): void {
  const addApns = async ({ params, services, user }: AuthedContext) => {
    const token = params.str('token');
    await addPushToken(services, user, APNS, token, params.str('appid'));
    return {};
  };
  const removeApns = async ({ params, services, user }: AuthedContext) => {
    await removePushToken(services, user, APNS, params.str('token'));
    return {};
  };
  const addGcm = async ({ params, services, user }: AuthedContext) => {
    await addPushToken(services, user, GCM, params.str('token'), null);
    return {};
  };
  const removeGcm = async ({ params, services, user }: AuthedContext) => {
    await removePushToken(services, user, GCM, params.str('token'));
    return {};
  };
  for (const path of ['/users/me/ios_device_token', '/users/me/apns_device_token']) {
    r.post(path, addApns);
    r.delete(path, removeApns);
  }
  for (const path of ['/users/me/android_reg_id', '/users/me/android_gcm_reg_id']) {
    r.post(path, addGcm);
    r.delete(path, removeGcm);
  }

  r.post('/users/me/api_key/regenerate', async ({ services, user }) => ({ api_key: await regenerateApiKey(services, user) }));
}
