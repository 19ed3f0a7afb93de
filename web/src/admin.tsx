// Administration, loaded the first time it is opened: users, invitations, channels, the organization.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, call } from './api';
import { allStreams, me, realm, realmSettings, showToast, users } from './state';
import { Confirm } from './confirm';

const ROLES: Array<[number, string]> = [
  [100, 'Owner'],
  [200, 'Administrator'],
  [300, 'Moderator'],
  [400, 'Member'],
  [600, 'Guest'],
];

async function run(p: Promise<unknown>, ok = 'Saved'): Promise<boolean> {
  try {
    await p;
    showToast(ok);
    return true;
  } catch (e) {
    showToast(e instanceof Error ? e.message : String(e));
    return false;
  }
}

/** A button whose action is asked about first (Confirm), the question shown just after it; the
 * focus back on the button when it closes. */
function AskFirst({ label, question, action, run }: { label: string; question: string; action: string; run: () => unknown }) {
  const [asking, setAsking] = useState(false);
  const trigger = useRef<HTMLButtonElement>(null);
  const done = () => {
    setAsking(false);
    trigger.current?.focus();
  };
  return (
    <>
      <button type="button" ref={trigger} aria-haspopup="dialog" aria-expanded={asking} onClick={() => setAsking(true)}>
        {label}
      </button>
      {asking ? <Confirm question={question} action={action} onCancel={done} onConfirm={() => (done(), run())} /> : null}
    </>
  );
}

function Users() {
  const [emails, setEmails] = useState('');
  const [inviteAs, setInviteAs] = useState(400);
  const [links, setLinks] = useState('');
  const list = [...users.value.values()].filter((u) => !u.is_bot).sort((a, b) => a.full_name.localeCompare(b.full_name));
  return (
    <div>
      <h2>Invite people</h2>
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          const ok = await run(api.post('/invites', { invitee_emails: emails, stream_ids: [], invite_as: inviteAs }), 'Invitations sent');
          if (ok) setEmails('');
        }}
      >
        <label for="invite-emails">Emails to invite</label>
        <input id="invite-emails" value={emails} onInput={(e) => setEmails(e.currentTarget.value)} placeholder="one@example.com, two@example.com" />
        <label for="invite-as">Invite as</label>
        <select id="invite-as" value={inviteAs} onChange={(e) => setInviteAs(Number(e.currentTarget.value))}>
          {ROLES.map(([v, l]) => (
            <option key={v} value={v}>
              {l}
            </option>
          ))}
        </select>
        <button type="submit" class="primary">
          Invite
        </button>
        <button
          type="button"
          onClick={async () => {
            try {
              const r = await api.post('/invites/multiuse', { invite_as: inviteAs, stream_ids: [] });
              setLinks(r.invite_link);
            } catch (err) {
              showToast(err instanceof Error ? err.message : String(err));
            }
          }}
        >
          Create invitation link
        </button>
        {links ? <code class="key">{links}</code> : null}
      </form>
      <h2>Users</h2>
      {/* Wider than a phone: it scrolls sideways in its box, its last columns reachable. */}
      <div class="table-scroll">
        <table class="admin-table">
          <thead>
            <tr>
              <th>Name</th>
              <th>Email</th>
              <th>Role</th>
              <th>Status</th>
            </tr>
          </thead>
          <tbody>
            {list.map((u) => (
              <tr key={u.user_id}>
                <td>{u.full_name}</td>
                <td>{u.email}</td>
                <td>
                  <select aria-label={`Role of ${u.full_name}`} value={u.role} disabled={u.user_id === me.value.user_id} onChange={(e) => void run(api.patch(`/users/${u.user_id}`, { role: Number(e.currentTarget.value) }))}>
                    {ROLES.map(([v, l]) => (
                      <option key={v} value={v}>
                        {l}
                      </option>
                    ))}
                  </select>
                </td>
                <td>
                  {u.user_id === me.value.user_id ? (
                    'You'
                  ) : u.is_active ? (
                    <AskFirst label={`Deactivate ${u.full_name}`} question={`Deactivate ${u.full_name}?`} action="Deactivate" run={() => run(api.del(`/users/${u.user_id}`), 'Deactivated')} />
                  ) : (
                    <button type="button" onClick={() => void run(api.post(`/users/${u.user_id}/reactivate`), 'Reactivated')}>
                      Reactivate {u.full_name}
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}

function Channels() {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [priv, setPriv] = useState(false);
  const [open, setOpen] = useState<number | null>(null);
  const list = [...allStreams.value.values()].filter((s) => !s.is_archived).sort((a, b) => a.name.localeCompare(b.name));
  return (
    <div>
      <h2>Create a channel</h2>
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          const ok = await run(api.post('/users/me/subscriptions', { subscriptions: [{ name, description }], invite_only: priv }), 'Channel created');
          if (ok) {
            setName('');
            setDescription('');
          }
        }}
      >
        <label for="new-channel-name">Channel name</label>
        <input id="new-channel-name" required value={name} onInput={(e) => setName(e.currentTarget.value)} />
        <label for="new-channel-description">Description</label>
        <input id="new-channel-description" value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
        <label class="check">
          <input type="checkbox" checked={priv} onChange={(e) => setPriv(e.currentTarget.checked)} /> Private
        </label>
        <button type="submit" class="primary">
          Create channel
        </button>
      </form>
      <h2>Channels</h2>
      <ul class="admin-list">
        {list.map((s) => (
          <li key={s.stream_id}>
            <strong>{s.name}</strong> <span class="muted">{s.description}</span>{' '}
            <AskFirst label={`Archive ${s.name}`} question={`Archive ${s.name}?`} action="Archive" run={() => run(api.del(`/streams/${s.stream_id}`), 'Archived')} />{' '}
            <button type="button" aria-expanded={open === s.stream_id} onClick={() => setOpen(open === s.stream_id ? null : s.stream_id)}>
              Edit {s.name}
            </button>
            {open === s.stream_id ? <ChannelEditor id={s.stream_id} name={s.name} description={s.description} /> : null}
          </li>
        ))}
      </ul>
    </div>
  );
}

function ChannelEditor({ id, name, description }: { id: number; name: string; description: string }) {
  const [newName, setNewName] = useState(name);
  const [desc, setDesc] = useState(description);
  const [members, setMembers] = useState<number[]>([]);
  const [add, setAdd] = useState('');
  const reload = () => void api.get(`/streams/${id}/members`).then((r) => setMembers(r.subscribers), () => {});
  useEffect(reload, [id]);
  return (
    <div class="editor">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          const params: Record<string, string> = { description: desc };
          if (newName !== name) params.new_name = newName;
          void run(api.patch(`/streams/${id}`, params));
        }}
      >
        <label for={`ch-name-${id}`}>New name</label>
        <input id={`ch-name-${id}`} value={newName} onInput={(e) => setNewName(e.currentTarget.value)} />
        <label for={`ch-desc-${id}`}>Channel description</label>
        <input id={`ch-desc-${id}`} value={desc} onInput={(e) => setDesc(e.currentTarget.value)} />
        <button type="submit">Save channel</button>
      </form>
      <h3>Members</h3>
      <ul>
        {members.map((uid) => (
          <li key={uid}>
            {users.value.get(uid)?.full_name ?? uid}{' '}
            <button type="button" onClick={async () => (await run(api.del('/users/me/subscriptions', { subscriptions: [name], principals: [uid] }), 'Removed')) && reload()}>
              Remove {users.value.get(uid)?.full_name ?? uid}
            </button>
          </li>
        ))}
      </ul>
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          const u = [...users.value.values()].find((x) => x.email === add.trim() || x.full_name === add.trim());
          if (!u) return showToast('No such person');
          if (await run(api.post('/users/me/subscriptions', { subscriptions: [{ name }], principals: [u.user_id] }), 'Added')) {
            setAdd('');
            reload();
          }
        }}
      >
        <label for={`ch-add-${id}`}>Add member (name or email)</label>
        <input id={`ch-add-${id}`} value={add} onInput={(e) => setAdd(e.currentTarget.value)} />
        <button type="submit">Add member</button>
      </form>
    </div>
  );
}

function Bots() {
  const [name, setName] = useState('');
  const [short, setShort] = useState('');
  const [made, setMade] = useState('');
  // The organization's own bots, as Zulip lists them: not the system bots every organization
  // shares (Notification Bot, Welcome Bot, ...), which no organization can deactivate.
  const bots = [...users.value.values()].filter((u) => u.is_bot && u.is_active && !u.is_system_bot);
  return (
    <div>
      <h2>Bots</h2>
      <ul class="admin-list">
        {bots.map((b) => (
          <li key={b.user_id}>
            {b.full_name} <span class="muted">{b.email}</span>{' '}
            <AskFirst label={`Deactivate ${b.full_name}`} question={`Deactivate ${b.full_name}?`} action="Deactivate" run={() => run(api.del(`/bots/${b.user_id}`), 'Deactivated')} />
          </li>
        ))}
      </ul>
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          try {
            const r = await api.post('/bots', { full_name: name, short_name: short, bot_type: 1 });
            setMade(`${r.api_key}`);
            setName('');
            setShort('');
          } catch (err) {
            showToast(err instanceof Error ? err.message : String(err));
          }
        }}
      >
        <label for="bot-name">Bot name</label>
        <input id="bot-name" required value={name} onInput={(e) => setName(e.currentTarget.value)} />
        <label for="bot-short">Bot email prefix</label>
        <input id="bot-short" required value={short} onInput={(e) => setShort(e.currentTarget.value)} />
        <button type="submit" class="primary">
          Create bot
        </button>
        {made ? <code class="key">API key: {made}</code> : null}
      </form>
    </div>
  );
}

function CustomEmoji() {
  const [name, setName] = useState('');
  const [file, setFile] = useState<File | null>(null);
  const list = Object.values(realm.value.emoji).filter((e) => !e.deactivated);
  return (
    <div>
      <h2>Custom emoji</h2>
      <ul class="admin-list">
        {list.map((e) => (
          <li key={e.id}>
            <img src={e.source_url} alt="" class="emoji" /> :{e.name}:{' '}
            <button type="button" onClick={() => void run(api.del(`/realm/emoji/${encodeURIComponent(e.name)}`), 'Removed')}>
              Remove :{e.name}:
            </button>
          </li>
        ))}
      </ul>
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          if (!file) return;
          const form = new FormData();
          form.append('file', file, file.name);
          if (await run(call('POST', `/realm/emoji/${encodeURIComponent(name)}`, form as never), 'Emoji added')) setName('');
        }}
      >
        <label for="emoji-name">Emoji name</label>
        <input id="emoji-name" required value={name} onInput={(e) => setName(e.currentTarget.value)} />
        <label for="emoji-file">Image</label>
        <input id="emoji-file" type="file" accept="image/*" required onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)} />
        <button type="submit">Add emoji</button>
      </form>
    </div>
  );
}

function Policies() {
  const r = realmSettings.value;
  const toggle = (prop: string, label: string) => (
    <label class="check">
      <input type="checkbox" checked={!!r[`realm_${prop}`]} onChange={(e) => void run(api.patch('/realm', { [prop]: e.currentTarget.checked }))} /> {label}
    </label>
  );
  return (
    <div>
      <h2>Policies</h2>
      {toggle('invite_required', 'Invitations are required to join')}
      {toggle('allow_message_editing', 'People may edit their messages')}
      {toggle('mandatory_topics', 'Messages in channels need a topic')}
      {toggle('emails_restricted_to_domains', 'Only addresses of the organization\'s domains may join')}
    </div>
  );
}

function Organization() {
  const [name, setName] = useState(realm.value.name);
  const [description, setDescription] = useState(realm.value.description);
  const [linkifiers, setLinkifiers] = useState<Array<{ id: number; pattern: string; url_template: string }>>([]);
  const [pattern, setPattern] = useState('');
  const [template, setTemplate] = useState('');
  const reload = () => void api.get('/realm/linkifiers').then((r) => setLinkifiers(r.linkifiers), () => {});
  useEffect(reload, []);
  return (
    <div>
      <h2>Organization profile</h2>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void run(api.patch('/realm', { name, description }));
        }}
      >
        <label for="org-name">Organization name</label>
        <input id="org-name" value={name} onInput={(e) => setName(e.currentTarget.value)} />
        <label for="org-description">Organization description</label>
        <textarea id="org-description" value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
        <button type="submit" class="primary">
          Save organization
        </button>
      </form>
      <h2>Linkifiers</h2>
      <ul class="admin-list">
        {linkifiers.map((l) => (
          <li key={l.id}>
            <code>{l.pattern}</code> → <code>{l.url_template}</code>{' '}
            <button type="button" onClick={async () => (await run(api.del(`/realm/filters/${l.id}`), 'Removed')) && reload()}>
              Remove linkifier {l.pattern}
            </button>
          </li>
        ))}
      </ul>
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          if (await run(api.post('/realm/filters', { pattern, url_template: template }), 'Linkifier added')) {
            setPattern('');
            setTemplate('');
            reload();
          }
        }}
      >
        <label for="lf-pattern">Pattern</label>
        <input id="lf-pattern" value={pattern} onInput={(e) => setPattern(e.currentTarget.value)} placeholder="#(?P<id>[0-9]+)" />
        <label for="lf-template">URL template</label>
        <input id="lf-template" value={template} onInput={(e) => setTemplate(e.currentTarget.value)} placeholder="https://github.com/org/repo/issues/{id}" />
        <button type="submit">Add linkifier</button>
      </form>
    </div>
  );
}

const TABS = [
  ['users', 'Users'],
  ['channels', 'Channels'],
  ['organization', 'Organization'],
  ['bots', 'Bots'],
  ['emoji', 'Custom emoji'],
];

export default function Admin({ tab: asked }: { tab: string }) {
  if (!me.value.is_admin) return <p>Only administrators can open this page.</p>;
  // An address naming no tab of ours (a typo, an old link, a Zulip section we lack) opens the first.
  const tab = TABS.some(([id]) => id === asked) ? asked : 'users';
  return (
    <section class="settings" aria-label="Administration">
      <h1>Administration</h1>
      <nav class="tabs" aria-label="Administration sections">
        {TABS.map(([id, label]) => (
          <a key={id} href={`#organization/${id}`} aria-current={tab === id ? 'page' : undefined}>
            {label}
          </a>
        ))}
      </nav>
      {tab === 'users' ? <Users /> : null}
      {tab === 'channels' ? <Channels /> : null}
      {tab === 'organization' ? (
        <>
          <Organization />
          <Policies />
        </>
      ) : null}
      {tab === 'bots' ? <Bots /> : null}
      {tab === 'emoji' ? <CustomEmoji /> : null}
    </section>
  );
}
