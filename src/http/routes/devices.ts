// Push device tokens, under the founding document's names and Zulip's current ones, and API keys.
import type { AuthedContext, Router } from '../router.js';
import { addPushToken, APNS, GCM, regenerateApiKey, registerClientDevice, registerPushDevice, removePushToken, testE2eePushNotification, testPushNotification } from '../../actions/devices.js';
import { PushServiceNotConfigured } from '../../errors.js';

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

  r.post('/register_client_device', async ({ services, user }) => ({ device_id: await registerClientDevice(services, user) }));

  r.post('/mobile_push/register', async ({ params, services, user }) =>
    registerPushDevice(services, user, {
      deviceId: params.int('device_id'),
      pushKeyId: params.optInt('push_key_id'),
      pushKey: params.optStr('push_key'),
      tokenKind: params.optStr('token_kind'),
      tokenId: params.optStr('token_id'),
      bouncerPublicKey: params.optStr('bouncer_public_key'),
      encryptedPushRegistration: params.optStr('encrypted_push_registration'),
    }),
  );
  r.post('/mobile_push/test_notification', async ({ params, services, user, realm }) => testPushNotification(services, user, realm, params.optStr('token')));
  r.post('/mobile_push/e2ee/test_notification', async ({ params, services, user, realm }) => testE2eePushNotification(services, user, realm, params.optInt('device_id')));

  // The push bouncer's own endpoint, which self-hosted servers call; this server is not a bouncer.
  r.publicRoute('POST', '/remotes/push/e2ee/register', async ({ params }) => {
    for (const name of ['realm_uuid', 'token_id', 'encrypted_push_registration', 'bouncer_public_key']) params.str(name);
    throw new PushServiceNotConfigured();
  });
}
