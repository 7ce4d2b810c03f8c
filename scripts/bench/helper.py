#!/usr/bin/env python3
"""Small helpers for scripts/bench-proxy (standard library only).

  helper.py ports N                       N free TCP ports on 127.0.0.1, one a line
  helper.py proxy-urls API_BASE LIST OUT  for each origin URL in LIST (one a line), ask Tuner's
                                          POST /api/v1/proxy-urls; write the full proxy URLs to OUT
  helper.py lua-paths LIST OUT            a Lua file returning the path (+query) of each URL in LIST
  helper.py curl-config LIST OUT          a curl --config file fetching every URL in LIST to /dev/null
  helper.py origin-bytes LOG URI          sum of $body_bytes_sent of LOG lines for URI ("uri status bytes")
  helper.py stat API_BASE KEY             one field of GET /api/v1/cache/stats
  helper.py median X...                   median of numbers
  helper.py fill-cache CACHE_DIR N BYTES  add N resources of BYTES each to a Tuner cache folder that
                                          `tuner cache stats` created (index rows, spans and data files)
  helper.py slow-clients URL N RATE SECS  N connections GETting URL, each reading RATE bytes/s, for SECS
                                          seconds once all are open; prints how many got a 2xx head
  helper.py random-ranges URL FILE N AT_ONCE SEED
                                          N random byte ranges of URL (AT_ONCE in flight, a sliding
                                          window), each checked against FILE; prints "seconds wrong"
"""
import asyncio
import json
import os
import socket
import sqlite3
import statistics
import sys
import urllib.parse
import urllib.request


def ports(n):
    socks = []
    for _ in range(int(n)):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        socks.append(s)
    for s in socks:
        print(s.getsockname()[1])
    for s in socks:
        s.close()


def proxy_urls(api_base, list_path, out_path):
    with open(list_path) as f:
        urls = [line.strip() for line in f if line.strip()]
    out = []
    for url in urls:
        request = urllib.request.Request(
            api_base.rstrip("/") + "/api/v1/proxy-urls",
            data=json.dumps({"url": url}).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            out.append(json.load(response)["proxyURL"])
    with open(out_path, "w") as f:
        f.write("\n".join(out) + "\n")


def lua_paths(list_path, out_path):
    with open(list_path) as f:
        urls = [line.strip() for line in f if line.strip()]
    lines = ["return {"]
    for url in urls:
        parts = urllib.parse.urlsplit(url)
        path = parts.path + ("?" + parts.query if parts.query else "")
        lines.append("  %s," % json.dumps(path))
    lines.append("}")
    with open(out_path, "w") as f:
        f.write("\n".join(lines) + "\n")


def curl_config(list_path, out_path):
    with open(list_path) as f:
        urls = [line.strip() for line in f if line.strip()]
    with open(out_path, "w") as f:
        for url in urls:
            f.write('url = "%s"\noutput = "/dev/null"\n' % url)


def origin_bytes(log_path, uri):
    total = 0
    requests = 0
    try:
        with open(log_path) as f:
            for line in f:
                fields = line.split()
                if len(fields) >= 3 and fields[0] == uri:
                    total += int(fields[2])
                    requests += 1
    except FileNotFoundError:
        pass
    print(total, requests)


def stat(api_base, key):
    with urllib.request.urlopen(api_base.rstrip("/") + "/api/v1/cache/stats", timeout=10) as response:
        print(json.load(response)[key])


def median(values):
    print("%.1f" % statistics.median(float(v) for v in values))


def fill_cache(cache_dir, count, size):
    count, size = int(count), int(size)
    db = sqlite3.connect(os.path.join(cache_dir, "index.sqlite"))
    with db:
        for n in range(count):
            key = "%064x" % n
            db.execute("INSERT INTO resource (key, url, length, lastAccess) VALUES (?, ?, ?, ?)",
                       (key, "http://bench.invalid/%d" % n, size, float(n)))
            db.execute('INSERT INTO span (key, start, "end") VALUES (?, 0, ?)', (key, size))
            folder = os.path.join(cache_dir, key[:2])
            os.makedirs(folder, exist_ok=True)
            with open(os.path.join(folder, key), "wb") as f:
                f.write(b"\0" * size)
    db.close()


def slow_clients(url, count, rate, seconds):
    """Many slow players in one process (1,000 curl processes would need gigabytes themselves)."""
    parts = urllib.parse.urlsplit(url)
    target = parts.path + ("?" + parts.query if parts.query else "")
    request = f"GET {target} HTTP/1.1\r\nHost: {parts.netloc}\r\nConnection: close\r\n\r\n".encode()
    count, rate, seconds = int(count), int(rate), float(seconds)
    step = 0.25

    async def one(answered, opened, done):
        try:
            # A small receive buffer, as a player's would be in effect: the server then has to keep
            # writing as the reader reads, instead of filling megabytes of kernel buffer once.
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
            sock.setblocking(False)
            await asyncio.get_running_loop().sock_connect(sock, (parts.hostname, parts.port))
            reader, writer = await asyncio.open_connection(sock=sock)
        except OSError:
            opened.append(False)
            return
        opened.append(True)
        writer.write(request)
        head = await reader.readuntil(b"\r\n\r\n")
        if head.split(b" ", 2)[1].startswith(b"2"):
            answered.append(True)
        while not done.is_set():
            chunk = await reader.read(int(rate * step))
            if not chunk:
                break
            await asyncio.sleep(step)
        writer.close()

    async def run():
        answered, opened, done, still = [], [], asyncio.Event(), 0
        tasks = [asyncio.create_task(one(answered, opened, done)) for _ in range(count)]
        for _ in range(120):  # up to 30 s for every answer's head; 2 s without a new one ends the wait
            if len(answered) >= count or (len(opened) >= count and still >= 8):
                break
            before = len(answered)
            await asyncio.sleep(0.25)
            still = still + 1 if len(answered) == before else 0
        print(len(answered), flush=True)
        await asyncio.sleep(seconds)
        done.set()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    asyncio.run(run())


def random_ranges(url, path, count, at_once, seed):
    import concurrent.futures
    import random
    import time

    with open(path, "rb") as f:
        content = f.read()
    size = len(content)
    rng = random.Random(int(seed))
    ranges = []
    for _ in range(int(count)):
        length = rng.randint(64 << 10, 2 << 20)
        start = rng.randrange(0, max(1, size - length))
        ranges.append((start, min(size, start + length) - 1))

    def fetch(bounds):
        first, last = bounds
        request = urllib.request.Request(url, headers={"Range": "bytes=%d-%d" % (first, last)})
        try:
            with urllib.request.urlopen(request, timeout=300) as response:
                body = response.read()
                expected = f"bytes {first}-{last}/{size}"
                ok = (
                    response.status == 206
                    and response.headers.get("Content-Range") == expected
                    and body == content[first:last + 1]
                )
        except Exception:
            ok = False
        return ok

    began = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=int(at_once)) as pool:
        results = list(pool.map(fetch, ranges))
    print("%.3f %d" % (time.monotonic() - began, results.count(False)))


def main(argv):
    commands = {
        "ports": ports, "proxy-urls": proxy_urls, "lua-paths": lua_paths, "curl-config": curl_config,
        "origin-bytes": origin_bytes, "stat": stat, "fill-cache": fill_cache, "slow-clients": slow_clients,
        "random-ranges": random_ranges,
    }
    if len(argv) >= 2 and argv[1] == "median":
        median(argv[2:])
    elif len(argv) >= 2 and argv[1] in commands:
        commands[argv[1]](*argv[2:])
    else:
        sys.stderr.write(__doc__)
        sys.exit(2)


if __name__ == "__main__":
    main(sys.argv)
