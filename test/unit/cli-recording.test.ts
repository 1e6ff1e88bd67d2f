// fake-gateway --record into a folder: numbering goes on after a recording already there, and a
// link planted in the folder is never written through.
import {
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { recorder } from '../../src/cli/recording.js';
import type { DeliveryRecord } from '../../src/testing/deliveries.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const folder = () => {
  const dir = mkdtempSync(join(tmpdir(), 'mg-record-'));
  dirs.push(dir);
  return dir;
};

const record = (kind: string): DeliveryRecord => ({
  api: 'v2',
  kind,
  url: 'http://127.0.0.1:1/hooks?secret=s',
  body: {},
  status: 200,
  repeat: false,
});
const sent = (body: string) => ({ body, headers: { 'content-type': 'application/json' } });

describe('fake-gateway --record', () => {
  it('numbers from 0001 in an empty folder, and after the last number in one that holds a recording', () => {
    const dir = folder();
    const first = recorder(dir);
    first(record('message.add'), sent('{"a":1}'));
    first(record('message.status_update'), sent('{"a":2}'));
    const second = recorder(dir);
    second(record('message.add'), sent('{"a":3}'));
    expect(
      readdirSync(dir)
        .filter((n) => !n.endsWith('.meta.json'))
        .sort(),
    ).toEqual(['0001-message.add.json', '0002-message.status_update.json', '0003-message.add.json']);
    expect(readFileSync(join(dir, '0001-message.add.json'), 'utf8')).toBe('{"a":1}');
    expect(JSON.parse(readFileSync(join(dir, '0003-message.add.meta.json'), 'utf8'))).toMatchObject({
      receiver: 'http://127.0.0.1:1/hooks',
      query: '?secret=s',
      status: 200,
    });
    expect(lstatSync(join(dir, '0003-message.add.json')).mode & 0o777).toBe(0o600);
  });

  it('never writes through a planted link: the file outside stays as it was, the delivery takes the next number', () => {
    const dir = folder();
    const outside = join(folder(), 'victim.txt');
    writeFileSync(outside, 'untouched');
    symlinkSync(outside, join(dir, '0001-message.add.json'));
    symlinkSync(outside, join(dir, '0002-message.add.meta.json'));
    const errors: string[] = [];
    recorder(dir, (e) => errors.push(e))(record('message.add'), sent('{"x":1}'));
    expect(readFileSync(outside, 'utf8')).toBe('untouched');
    expect(errors).toEqual([]);
    expect(readFileSync(join(dir, '0003-message.add.json'), 'utf8')).toBe('{"x":1}');
    expect(lstatSync(join(dir, '0003-message.add.meta.json')).isFile()).toBe(true);
  });

  it('names the receiver by its address alone: the query and any user and password stay out of it', () => {
    const dir = folder();
    recorder(dir)({ ...record('message.add'), url: 'http://user:pass@127.0.0.1:2/in?secret=s' }, sent('{}'));
    const sidecar = JSON.parse(readFileSync(join(dir, '0001-message.add.meta.json'), 'utf8'));
    expect(sidecar).toMatchObject({ receiver: 'http://127.0.0.1:2/in', query: '?secret=s' });
  });

  it('reports a delivery it cannot save instead of throwing into the gateway', () => {
    const dir = folder();
    const save = recorder(dir, (e) => errors.push(e));
    const errors: string[] = [];
    rmSync(dir, { recursive: true });
    expect(() => save(record('message.add'), sent('{}'))).not.toThrow();
    expect(errors).toEqual([expect.stringMatching(/could not record a message\.add delivery .*ENOENT/)]);
  });
});
