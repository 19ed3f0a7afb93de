// Custom profile fields: the organization's fields (GET/POST/PATCH /realm/profile_fields,
// PATCH/DELETE /realm/profile_fields/{field_id}) and one's own values (/users/me/profile_data).
import type { Router } from '../router.js';
import { pathInt } from '../router.js';
import { check, type Params } from '../../lib/params.js';
import { BadRequest } from '../../errors.js';
import { requireRealmAdmin } from '../../access/roles.js';
import {
  createProfileField,
  deleteProfileField,
  formatProfileField,
  listProfileFields,
  reorderProfileFields,
  updateProfileData,
  updateProfileField,
  type FieldSpec,
  type ProfileDataUpdate,
} from '../../actions/profile_fields.js';

/** profile_data / data: a list of {id, value}. */
export function profileDataList(v: unknown, name: string): ProfileDataUpdate[] {
  return check.list(v, name).map((item, i) => {
    const o = check.object(item, `${name}[${i}]`);
    if (!('value' in o)) throw new BadRequest(`${name}[${i}] is missing 'value'`);
    return { id: check.int(o.id, `${name}[${i}]["id"]`), value: o.value };
  });
}

function fieldSpec(params: Params): FieldSpec {
  return {
    name: params.optStr('name'),
    hint: params.optStr('hint'),
    fieldData: params.optJson('field_data', check.object),
    displayInProfileSummary: params.optBool('display_in_profile_summary'),
    required: params.optBool('required'),
    editableByUser: params.optBool('editable_by_user'),
    useForUserMatching: params.optBool('use_for_user_matching'),
  };
}

export function registerProfileFieldRoutes(r: Router): void {
  r.get('/realm/profile_fields', async ({ services, realm }) => ({
    custom_fields: (await listProfileFields(services.database.db, realm.id)).map(formatProfileField),
  }));

  r.post('/realm/profile_fields', async ({ params, services, user, realm }) => {
    requireRealmAdmin(user);
    const fieldType = params.int('field_type');
    return { id: await createProfileField(services, user, realm, { ...fieldSpec(params), fieldType }) };
  });

  r.patch('/realm/profile_fields', async ({ params, services, user, realm }) => {
    requireRealmAdmin(user);
    await reorderProfileFields(services, user, realm, params.json('order', check.intList));
    return {};
  });

  r.patch('/realm/profile_fields/{field_id}', async (ctx) => {
    requireRealmAdmin(ctx.user);
    const id = pathInt(ctx, 'field_id', () => new BadRequest(`Field id ${ctx.path.field_id} not found.`));
    await updateProfileField(ctx.services, ctx.user, ctx.realm, id, fieldSpec(ctx.params));
    return {};
  });

  r.delete('/realm/profile_fields/{field_id}', async (ctx) => {
    requireRealmAdmin(ctx.user);
    const id = pathInt(ctx, 'field_id', () => new BadRequest(`Field id ${ctx.path.field_id} not found.`));
    await deleteProfileField(ctx.services, ctx.user, ctx.realm, id);
    return {};
  });

  r.patch('/users/me/profile_data', async ({ params, services, user, realm }) => {
    if (user.is_bot) throw new BadRequest('This endpoint does not accept bot requests.');
    await updateProfileData(services, user, realm, user, params.json('data', profileDataList));
    return {};
  });

  r.delete('/users/me/profile_data', async ({ params, services, user, realm }) => {
    if (user.is_bot) throw new BadRequest('This endpoint does not accept bot requests.');
    await updateProfileData(services, user, realm, user, [], params.json('data', check.intList));
    return {};
  });
}
