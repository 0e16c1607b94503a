// The one BSON document MAAS sends (op=details): a flat map of names to binary (subtype 0, what
// pymongo's bson.Binary defaults to) or null. Only those two element types are needed, so this is
// the BSON spec's document, binary and null productions and nothing else (bsonspec.org).

export type BsonValue = Buffer | null;

const TYPE_BINARY = 0x05;
const TYPE_NULL = 0x0a;
const SUBTYPE_GENERIC = 0x00;

function cstring(name: string): Buffer {
  if (name.includes('\0')) throw new Error(`BSON key ${JSON.stringify(name)} contains NUL`);
  return Buffer.concat([Buffer.from(name, 'utf8'), Buffer.from([0])]);
}

function int32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32LE(n);
  return b;
}

/** document ::= int32 e_list "\x00", the int32 counting the whole document; keys in the order given. */
export function encodeBson(doc: ReadonlyArray<readonly [string, BsonValue]>): Buffer {
  const elements = doc.map(([name, value]) =>
    value === null
      ? Buffer.concat([Buffer.from([TYPE_NULL]), cstring(name)])
      : Buffer.concat([Buffer.from([TYPE_BINARY]), cstring(name), int32(value.length), Buffer.from([SUBTYPE_GENERIC]), value]),
  );
  const body = Buffer.concat([...elements, Buffer.from([0])]);
  return Buffer.concat([int32(body.length + 4), body]);
}
