/// <reference lib="dom" />
// The DNS console's Groups and Users screens (issue 42) in headless Chromium against the real service and database:
// a group renamed, moved, a move below itself refused with the API's message, its DNSSEC default and usable
// nameservers set; a user's permissions edited (inheritance off, zone delete taken away) and then checked as that
// user over HTTP: the zone delete is refused. An administrator whose group may not change groups sees the controls
// disabled, and the API refuses them too. axe-core runs on every screen; no request may leave the service's origin.
import type { CookieClient } from '../helpers/client';
import { browserPath, startConsoleStand, type ConsoleStand } from '../helpers/console-stand';
import { PASSWORD } from '../helpers/server';
import { expectStatus, newZone, type Json } from '../zones/dns-client';

jest.setTimeout(240_000);

if (!browserPath) console.warn('No Chromium found: the DNS console tests are skipped (CI sets KEYZONE_REQUIRE_BROWSER=1)');
const describeInBrowser = browserPath ? describe : describe.skip;

let stand: ConsoleStand;
let alice: CookieClient; // administrator of the top group, no permission object
let bob: CookieClient; // a user of "team"
let carl: CookieClient; // an administrator of "team", whose group's permission object lacks group write
const ids = { top: 0, team: 0, dept: 0, deep: 0, sub: 0, bob: 0, ns: 0, zone: 0 };

const newGroup = async (name: string, parent: number): Promise<number> =>
  expectStatus(await alice.post('/group', { name, parent_gid: parent }), 201).body.group.id as number;

const newUser = async (username: string, gid: number, isAdmin: boolean): Promise<number> =>
  expectStatus(await alice.post('/user', {
    gid, username, email: `${username}@example.com`, password: PASSWORD, first_name: username, last_name: 'Test', is_admin: isAdmin,
  }), 201).body.user.id as number;

/** Whether the form control with this accessible name and role is disabled. */
async function disabled(name: string, role: string): Promise<boolean> {
  const handle = await stand.page.waitForSelector(`::-p-aria(${name}[role="${role}"])`, { visible: true });
  return handle!.evaluate((el) => (el as HTMLInputElement).disabled);
}

async function openGroup(gid: number, name: string): Promise<void> {
  await stand.page.goto(`${stand.server.url}/#/groups?gid=${gid}`, { waitUntil: 'networkidle0' });
  await stand.page.waitForSelector(`h2::-p-text(Group ${name})`);
  await stand.page.waitForSelector('::-p-text(What you may do here)');
}

describeInBrowser('the DNS console\'s groups and permissions', () => {
  beforeAll(async () => {
    stand = await startConsoleStand({ kind: 'postgres' });
    const t = stand.server;
    ids.top = (await t.seedUser({ group: 'GroupsConsole', username: 'alice', isAdmin: true })).groupId;
    alice = await t.login('alice@GroupsConsole');
    ids.team = await newGroup('team.groups.test', ids.top);
    ids.dept = await newGroup('dept.groups.test', ids.top);
    ids.deep = await newGroup('deep.groups.test', ids.team);
    ids.sub = await newGroup('sub.groups.test', ids.team);
    ids.bob = await newUser('bob', ids.team, false);
    await newUser('carl', ids.team, true);
    ids.ns = expectStatus(await alice.post('/nameserver', { name: 'ns1.groups.test.', address: '192.0.2.53', export: { type: 'bind' } }), 201).body.nameserver.id;
    ids.zone = (await newZone(alice, { gid: ids.team }) as Json).id;
    // team's object: everything but changing groups, so carl (team's administrator) may not rename or move them
    const all = { create: true, write: true, delete: true };
    expectStatus(await alice.post('/permission', {
      name: 'team rights', group: { id: ids.team, create: true, write: false, delete: true }, user: all, nameserver: all,
      zone: { ...all, delegate: true }, zonerecord: { ...all, delegate: true }, self_write: true,
    }), 201);
    bob = await t.login('bob@team.groups.test');
    carl = await t.login('carl@team.groups.test');
  }, 180_000);

  afterAll(async () => {
    await stand?.close();
  });

  test('the Groups screen shows what the signed-in user may do in a group, and renames it', async () => {
    await stand.signIn('alice@GroupsConsole');
    await stand.page.goto(`${stand.server.url}/#/groups`, { waitUntil: 'networkidle0' });
    await (await stand.page.waitForSelector('::-p-aria(Manage group team.groups.test)'))!.click();
    await stand.page.waitForSelector('h2::-p-text(Group team.groups.test)');
    await stand.page.waitForSelector('::-p-text(What you may do here)');
    expect(await stand.page.$eval('dl[aria-label="Your rights on this group"]', (el) => (el as HTMLElement).innerText.replace(/\s+/g, ' ')))
      .toContain('Rename yes Move yes');
    await stand.waitForText('No permission object applies to you');
    // alice has no object: every box of her grid is ticked, and it cannot be changed from here
    const grid = await stand.page.evaluate(() => {
      const table = Array.from(document.querySelectorAll('table')).find((t) => t.caption?.textContent === 'What you may do in this group');
      return Array.from(table?.querySelectorAll('input') ?? []).map((b) => [b.checked, b.disabled]);
    });
    expect(grid).toEqual(Array(17).fill([true, true])); // 5 objects × create/change/delete, and delegate for zones and records
    await stand.audit('group');
    await stand.screenshot('group-manage');
    await stand.fill('New name', 'crew.groups.test');
    await stand.click('Save name and place');
    await stand.waitForText('crew.groups.test was saved.');
    expect(expectStatus(await alice.get(`/group/${ids.team}`), 200).body.group.name).toBe('crew.groups.test');
  });

  test('moves a group, and shows the API\'s refusal of a move below the group itself', async () => {
    await openGroup(ids.deep, 'deep.groups.test');
    await stand.page.select(await stand.field('Parent group'), String(ids.dept));
    await stand.click('Save name and place');
    await stand.waitForText('deep.groups.test was saved.');
    expect(expectStatus(await alice.get(`/group/${ids.deep}`), 200).body.group.parent_gid).toBe(ids.dept);

    await openGroup(ids.dept, 'dept.groups.test');
    await stand.page.select(await stand.field('Parent group'), String(ids.deep));
    await stand.click('Save name and place');
    await stand.waitForText('The group was not changed');
    await stand.waitForText('A group cannot move below itself');
    await stand.audit('group with an error');
    expect(expectStatus(await alice.get(`/group/${ids.dept}`), 200).body.group.parent_gid).toBe(ids.top);
  });

  test('sets a group\'s DNSSEC default and the nameservers above it that its zones may use', async () => {
    await openGroup(ids.deep, 'deep.groups.test');
    await (await stand.page.waitForSelector('::-p-aria(Sign new zones (DNSSEC) by default)'))!.click();
    await (await stand.page.waitForSelector('::-p-aria(Only these:)'))!.click();
    await (await stand.page.waitForSelector('::-p-aria(ns1.groups.test.)'))!.click();
    await stand.click('Save settings');
    await stand.waitForText('The settings of deep.groups.test were saved.');
    expect(expectStatus(await alice.get(`/group/${ids.deep}`), 200).body.group).toMatchObject({ dnssec_default: true, usable_ns: [ids.ns] });
  });

  test('a group\'s permission object is created from the grid, without what was unticked', async () => {
    await openGroup(ids.sub, 'sub.groups.test');
    await stand.waitForText('This group has no permission object');
    const box = 'input[aria-label="delete zone records"]';
    // the grid of the group's permissions, not alice's own read-only one above it
    const editable = await stand.page.$$(box);
    expect(editable).toHaveLength(2);
    await editable[1]!.click();
    await stand.click('Save permissions');
    await stand.waitForText('The permissions of sub.groups.test were saved.');
    const objects = expectStatus(await alice.get(`/permission?gid=${ids.sub}`), 200).body.permission as Json[];
    expect(objects).toHaveLength(1);
    expect(objects[0]).toMatchObject({ group: { id: ids.sub }, zonerecord: { create: true, write: true, delete: false }, zone: { delete: true } });
    await stand.waitForText('Permission object');
    await stand.audit('group permissions');
  });

  test('a user\'s permissions: inheritance turned off and zone delete taken away; the user can then no longer delete a zone', async () => {
    expect(expectStatus(await bob.get(`/group/${ids.team}/access`), 200).body.access.allowed.zone.delete).toBe(true);
    await stand.page.goto(`${stand.server.url}/#/users?gid=${ids.team}`, { waitUntil: 'networkidle0' });
    await stand.click('Permissions of bob');
    await stand.page.waitForSelector('::-p-text(Inherited from the group)');
    await stand.audit('user permissions, inherited');
    await (await stand.page.waitForSelector('::-p-aria(Inherit the group\'s permissions)'))!.click();
    await stand.page.waitForSelector('::-p-text(bob\'s own permissions)');
    // started from the group's object: zone delete ticked, group write not
    expect(await stand.page.$eval('input[aria-label="delete zones"]', (b) => (b as HTMLInputElement).checked)).toBe(true);
    expect(await stand.page.$eval('input[aria-label="change groups"]', (b) => (b as HTMLInputElement).checked)).toBe(false);
    await (await stand.page.$('input[aria-label="delete zones"]'))!.click();
    await stand.audit('user permissions, own');
    await stand.screenshot('user-permissions');
    await stand.click('Save permissions');
    await stand.waitForText('The permissions were saved.');

    const objects = expectStatus(await alice.get(`/permission?gid=${ids.team}`), 200).body.permission as Json[];
    expect(objects.find((o) => o.user.id === ids.bob)).toMatchObject({ inherit: false, zone: { create: true, write: true, delete: false } });
    const refused = await bob.delete(`/zone/${ids.zone}`);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/You may not delete zones: your own permissions/);
    expectStatus(await alice.get(`/zone/${ids.zone}`), 200);
  });

  test('an administrator whose permissions lack group write sees the group controls disabled, and the API refuses them', async () => {
    await stand.signIn('carl@crew.groups.test');
    await openGroup(ids.sub, 'sub.groups.test');
    await stand.waitForText('your group\'s permission object');
    const controls = [['New name', 'textbox'], ['Parent group', 'combobox'], ['Save name and place', 'button'],
      ['Sign new zones (DNSSEC) by default', 'checkbox'], ['All of them', 'radio'], ['Save settings', 'button']];
    for (const [name, role] of controls) expect([name, await disabled(name!, role!)]).toEqual([name, true]);
    expect(await stand.page.$eval('dl[aria-label="Your rights on this group"]', (el) => (el as HTMLElement).innerText.replace(/\s+/g, ' ')))
      .toContain('Rename no Move no Change its settings no');
    await stand.audit('group, read-only');
    const refused = await carl.put(`/group/${ids.sub}`, { name: 'carls.groups.test' });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/You may not change groups: your group's permissions/);
    expect(expectStatus(await carl.put(`/group/${ids.sub}`, { parent_gid: ids.team }), 403).body.message).toMatch(/change groups/);

    // In bob's permissions carl may take away or grant what he has himself, never "change groups".
    await stand.page.goto(`${stand.server.url}/#/users?gid=${ids.team}`, { waitUntil: 'networkidle0' });
    await stand.click('Permissions of bob');
    await stand.page.waitForSelector('::-p-text(bob\'s own permissions)');
    expect(await disabled('change groups', 'checkbox')).toBe(true);
    expect(await disabled('delete zones', 'checkbox')).toBe(false);
    await stand.audit('user permissions, limited writer');
  });

  test('no screen had a serious accessibility violation, and no request left the service\'s origin', () => {
    expect(stand.violations).toEqual([]);
    expect(stand.foreignRequests).toEqual([]);
  });
});
