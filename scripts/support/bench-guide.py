# A guide of at least 205 MB for the benchmarks (bench-catalog, bench-backup): the real
# iptv-org-epg and Jellyfin.XmlTv programmes repeated over more channels and days, shifted to
# around now. Usage: bench-guide.py SHARED_DATA_DIR OUTPUT.xml
import datetime, glob, os, re, sys, time
root, out = sys.argv[1], sys.argv[2]
files = sorted(set(glob.glob(root + '/iptv-org-epg/**/*.xml', recursive=True) + glob.glob(root + '/Jellyfin.XmlTv/**/*.xml', recursive=True)))
programme_re = re.compile(r'<programme\b[^>]*>.*?</programme>', re.S)
channel_re = re.compile(r'<channel\s+id="[^"]*".*?</channel>', re.S)
attr_re = lambda name: re.compile(r'\b' + name + r'="([^"]*)"')
start_re, stop_re, chan_re = attr_re('start'), attr_re('stop'), attr_re('channel')
def parse(t):
    t = t.strip()
    base = datetime.datetime.strptime(t[:14], '%Y%m%d%H%M%S').replace(tzinfo=datetime.timezone.utc)
    zone = t[14:].strip()
    if zone:
        sign = -1 if zone[0] == '-' else 1
        base -= sign * datetime.timedelta(hours=int(zone[1:3]), minutes=int(zone[3:5]))
    return int(base.timestamp())
programmes, channels = [], []
for path in files:
    text = open(path, encoding='utf-8', errors='replace').read()
    if '<tv' not in text:
        continue
    channels += channel_re.findall(text)
    for block in programme_re.findall(text):
        try:
            start = parse(start_re.search(block).group(1))
            stop = parse(stop_re.search(block).group(1)) if stop_re.search(block) else start + 1800
            channel = chan_re.search(block).group(1)
        except Exception:
            continue
        programmes.append((channel, start, max(stop, start + 60), block))
first = min(p[1] for p in programmes)
day = int(time.time()) // 86400 * 86400 - 86400
fmt = lambda s: datetime.datetime.fromtimestamp(s, datetime.timezone.utc).strftime('%Y%m%d%H%M%S +0000')
strip_attrs = re.compile(r'\s(start|stop|channel)="[^"]*"')
with open(out, 'w', encoding='utf-8') as f:
    f.write('<?xml version="1.0" encoding="UTF-8"?>\n<tv generator-info-name="bench-catalog">\n')
    copies = 0
    while f.tell() < 205 * 1024 * 1024:
        for block in channels:
            f.write(re.sub(r'<channel\s+id="([^"]*)"', lambda m: f'<channel id="{m.group(1)}.{copies}"', block, count=1) + '\n')
        # Each copy is another set of channels, and on another day of the week.
        shift = (copies % 7) * 86400
        for channel, start, stop, block in programmes:
            s = day + shift + (start - first) % (7 * 86400)
            body = strip_attrs.sub('', block.replace('<programme', '', 1), count=3)
            f.write(f'<programme start="{fmt(s)}" stop="{fmt(s + stop - start)}" channel="{channel}.{copies}"{body}\n')
        copies += 1
    f.write('</tv>\n')
