"""The same seeded random events written by writers that are not the project's own: pyarrow
(Parquet, several writer settings), fastavro (Avro, each codec it has: a missing codec library fails the script), Python's csv and json
modules. Used by test/integration/columnar-conformance.test.ts, which stages each file with the
built CLI and compares the events. Usage: conformance-files.py DIR COUNT SEED; prints the names
of the files written, one a line."""
import csv, datetime, io, json, os, random, sys, types, uuid

# fastavro (before Python 3.14) writes zstandard blocks with backports.zstd, whose compress and
# decompress the zstandard package has too: it stands in where backports.zstd is not installed.
try:
    import backports.zstd  # noqa: F401
except ImportError:
    import zstandard
    sys.modules['backports'] = types.ModuleType('backports')
    sys.modules['backports'].zstd = zstandard
    sys.modules['backports.zstd'] = zstandard

import fastavro
import pyarrow as pa
import pyarrow.parquet as pq

out_dir, count, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(seed)

KEYS = ['__proto__', 'constructor', 'toString', 'a.b', '', 'x y', 'é', '$set']
PIECES = ['plain', 'line\nbreak', 'crlf\r\nend', 'tab\tin', 'nul\x00byte', 'quote"s', 'back\\slash',
          '\\ud800 (escaped surrogate text)', 'emoji \U0001F600', 'ünïcödé', ',comma', '   ']


def text():
    return ''.join(rng.choice(PIECES) for _ in range(rng.randint(1, 3)))


def maybe(value):
    return None if rng.random() < 0.1 else value


def event(i):
    zone = datetime.timezone(datetime.timedelta(minutes=rng.choice([0, 330, -420, 60, -150])))
    at = datetime.datetime(2023, 1, 1, tzinfo=datetime.timezone.utc) + datetime.timedelta(milliseconds=rng.randrange(10**11))
    return {
        'uuid': str(uuid.UUID(int=rng.getrandbits(128), version=4)),
        'event': rng.choice(['pageview', 'signup', 'pürchase', 'a.b', 'with space']),
        'distinct_id': rng.choice(['user_', 'id:', '']) + str(rng.getrandbits(40)),
        'time': at.astimezone(zone),
        'big': maybe(rng.choice([rng.getrandbits(63), -rng.getrandbits(63), 2**53 + 1, 2**63 - 1, -(2**63), rng.randint(-1000, 1000)])),
        'text': maybe(text()),
        'score': maybe(rng.choice([rng.random() * 10**rng.randint(-8, 12), -rng.random(), 0.1, 1e-7, 123456789.125])),
        'flag': maybe(rng.random() < 0.5),
        'nested': maybe({'n': maybe(rng.randint(-10**12, 10**12)), 's': maybe(text())}),
        'attrs': maybe({k: text() for k in rng.sample(KEYS, rng.randint(0, 4))}),
        'tags': maybe([text() for _ in range(rng.randint(0, 3))]),
    }


events = [event(i) for i in range(count)]
PROPS = ['big', 'text', 'score', 'flag', 'nested', 'attrs', 'tags']
written = []


def iso(at):
    return at.isoformat(timespec='milliseconds')


def properties(e):
    return {k: e[k] for k in PROPS if e[k] is not None}


# JSON lines and CSV: the properties as a JSON object (CSV: as JSON text in a column).
with open(os.path.join(out_dir, 'events.jsonl'), 'w', encoding='utf-8') as f:
    for e in events:
        f.write(json.dumps({'uuid': e['uuid'], 'event': e['event'], 'distinct_id': e['distinct_id'], 'timestamp': iso(e['time']), 'properties': properties(e)}) + '\n')
written.append('events.jsonl')
with open(os.path.join(out_dir, 'events.csv'), 'w', encoding='utf-8', newline='') as f:
    w = csv.writer(f)
    w.writerow(['uuid', 'event', 'distinct_id', 'timestamp', 'properties'])
    for e in events:
        w.writerow([e['uuid'], e['event'], e['distinct_id'], iso(e['time']), json.dumps(properties(e))])
written.append('events.csv')

# Parquet: one typed column a property, the time a zoned timestamp.
schema = pa.schema([
    ('uuid', pa.string()), ('event', pa.string()), ('distinct_id', pa.string()), ('timestamp', pa.timestamp('ms', tz='UTC')),
    ('big', pa.int64()), ('text', pa.string()), ('score', pa.float64()), ('flag', pa.bool_()),
    ('nested', pa.struct([('n', pa.int64()), ('s', pa.string())])), ('attrs', pa.map_(pa.string(), pa.string())), ('tags', pa.list_(pa.string())),
])
columns = {name: [] for name in schema.names}
for e in events:
    for name in schema.names:
        value = e['time'] if name == 'timestamp' else e[name]
        columns[name].append(list(value.items()) if name == 'attrs' and value is not None else value)
table = pa.table(columns, schema=schema)
PARQUET = {
    'plain': dict(compression='none', use_dictionary=False),
    'dict-snappy': dict(compression='snappy', use_dictionary=True),
    'v2-zstd-crc': dict(compression='zstd', data_page_version='2.0', write_page_checksum=True),
    'v1-gzip-crc-nodict': dict(compression='gzip', use_dictionary=False, write_page_checksum=True),
    'v2-none-crc-small-pages': dict(compression='none', data_page_version='2.0', write_page_checksum=True, data_page_size=512, row_group_size=97),
    'brotli-lz4': dict(compression={'uuid': 'brotli', 'text': 'lz4'}),
}
for name, options in PARQUET.items():
    pq.write_table(table, os.path.join(out_dir, f'pyarrow-{name}.parquet'), **options)
    written.append(f'pyarrow-{name}.parquet')

# Avro: the same columns as a record; the time a timestamp-millis.
def nullable(t):
    return ['null', t]
avro_schema = {'type': 'record', 'name': 'Event', 'fields': [
    {'name': 'uuid', 'type': 'string'}, {'name': 'event', 'type': 'string'}, {'name': 'distinct_id', 'type': 'string'},
    {'name': 'timestamp', 'type': {'type': 'long', 'logicalType': 'timestamp-millis'}},
    {'name': 'big', 'type': nullable('long')}, {'name': 'text', 'type': nullable('string')}, {'name': 'score', 'type': nullable('double')},
    {'name': 'flag', 'type': nullable('boolean')},
    {'name': 'nested', 'type': nullable({'type': 'record', 'name': 'Nested', 'fields': [{'name': 'n', 'type': nullable('long')}, {'name': 's', 'type': nullable('string')}]})},
    {'name': 'attrs', 'type': nullable({'type': 'map', 'values': 'string'})}, {'name': 'tags', 'type': nullable({'type': 'array', 'items': 'string'})},
]}
records = [dict({k: e[k] for k in ['uuid', 'event', 'distinct_id'] + PROPS}, timestamp=e['time']) for e in events]
for codec in ['null', 'deflate', 'snappy', 'zstandard', 'bzip2', 'xz', 'lz4']:
    with open(os.path.join(out_dir, f'fastavro-{codec}.avro'), 'wb') as f:
        fastavro.writer(f, fastavro.parse_schema(avro_schema), records, codec=codec, sync_interval=4000)
    written.append(f'fastavro-{codec}.avro')
print('\n'.join(written))
