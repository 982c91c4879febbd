// NOTIFY received (RFC 1996) for a zone Keyzone keeps as a secondary of an outside primary: from the primary's address
// or signed with the zone's TSIG key it is answered NOERROR and the zone is marked due for a check (the check asks the
// primary itself, RFC 1996 §3.11, so a NOTIFY never carries data in), at most once per secondary_min_refresh_seconds;
// the refresher of this instance is kicked, and any other instance finds it due at its next look. Anything else is REFUSED, and refusals per address are limited
// (beyond the limit no answer at all), so a NOTIFY flood from elsewhere costs one query per message and starts nothing.
import { normalizeAddress } from '@keyzone/config';
import type { Deps } from '../deps';
import { findSecondaryZone, markSecondaryDue } from '../queries/secondary-zones';
import { findLiveZoneByName } from '../queries/zones';
import type { TsigKeyInUse } from '../services/access/tsig-keys';
import { CLASS, RCODE, type RawMessage } from './message';

const REFUSALS_PER_SECOND = 5;
const refusals = new Map<string, { tokens: number; at: number }>();

/** Whether another refusal may be answered to this address now (a token bucket per address). */
function mayAnswerRefusal(address: string): boolean {
  const now = Date.now();
  if (refusals.size > 10_000) refusals.clear();
  const b = refusals.get(address) ?? { tokens: REFUSALS_PER_SECOND, at: now };
  b.tokens = Math.min(REFUSALS_PER_SECOND, b.tokens + ((now - b.at) / 1000) * REFUSALS_PER_SECOND);
  b.at = now;
  refusals.set(address, b);
  if (b.tokens < 1) return false;
  b.tokens -= 1;
  return true;
}

/** The RCODE to answer a NOTIFY with, or undefined to stay silent (over the refusal limit). */
export async function answerNotify(deps: Deps, request: RawMessage, key: TsigKeyInUse | undefined, address: string): Promise<number | undefined> {
  const peer = normalizeAddress(address);
  const refuse = (reason: string) => {
    if (!mayAnswerRefusal(peer)) return undefined;
    deps.log.info({ peer, key: key?.name, reason }, 'NOTIFY refused');
    return RCODE.REFUSED;
  };
  // RFC 1996 §3.7: one question, the zone's name, type SOA.
  const q = request.questions[0];
  if (request.questions.length !== 1 || !q || q.type !== 'SOA') return RCODE.FORMERR;
  if (q.classCode !== CLASS.IN) return refuse('not class IN');
  const zone = await findLiveZoneByName(deps.db, `${q.name}.`);
  const secondary = zone && (await findSecondaryZone(deps.db, zone.id));
  if (!zone || !secondary) return refuse('not a secondary zone of Keyzone\'s');
  const fromPrimary = peer === normalizeAddress(secondary.primary_address);
  const signedByPrimary = key !== undefined && secondary.tsig_key_id !== null && key.caller.tsigKey?.id === secondary.tsig_key_id;
  if (!fromPrimary && !signedByPrimary) return refuse(`not from the primary of ${zone.name}`);
  // NOTIFY comes over UDP, whose source can be forged: however many arrive, the primary is asked at most once per
  // secondary_min_refresh_seconds (a NOTIFY soon after a check is answered, and the check waits until then).
  const now = deps.clock.now();
  const earliest = secondary.last_check_at ? new Date(new Date(secondary.last_check_at).getTime() + deps.config.dns.secondaryMinRefreshSeconds * 1000) : now;
  await markSecondaryDue(deps.db, zone.id, earliest > now ? earliest : now);
  deps.secondaries?.kick();
  deps.log.info({ zone: zone.name, peer }, 'NOTIFY from the primary: the zone is checked now');
  return RCODE.NOERROR;
}
