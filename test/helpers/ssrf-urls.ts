// URL spellings the webhook egress policy refuses, with the EgressError code each gets (docs/egress.md). Shared by
// the policy's unit test (test/unit/egress-webhook.test.ts) and the create-time check of the webhook API.
// Every spelling the WHATWG URL parser turns into a private, loopback, link-local, mapped, NAT64 or non-unicast
// address, each refused by the webhook policy before any connection.
export const WEBHOOK_REFUSED_URLS: readonly [string, string][] = [
  // loopback, every spelling
  ['https://127.0.0.1/', 'blocked_address'],
  ['https://2130706433/', 'blocked_address'], // decimal
  ['https://0x7f000001/', 'blocked_address'], // hex
  ['https://0x7f.1/', 'blocked_address'], // hex, short
  ['https://017700000001/', 'blocked_address'], // octal
  ['https://0177.0.0.1/', 'blocked_address'], // octal part
  ['https://127.000.000.001/', 'blocked_address'], // zero-padded
  ['https://127.1/', 'blocked_address'], // short form
  ['https://127.0.0.1./', 'blocked_address'], // trailing dot
  ['https://%31%32%37.0.0.1/', 'blocked_address'], // percent-encoded
  ['https://１２７.０.０.１/', 'blocked_address'], // full-width digits
  ['https://①②⑦.0.0.1/', 'blocked_address'], // circled digits (IDNA mapping)
  ['https://[::1]/', 'blocked_address'],
  ['https://[0:0:0:0:0:0:0:1]:8443/', 'blocked_address'],
  ['https://localhost/', 'host_not_allowed'],
  ['https://LOCALHOST./', 'host_not_allowed'], // uppercase, trailing dot
  ['https://hooks.localhost/', 'host_not_allowed'],
  // private and carrier-grade NAT
  ['https://10.0.0.5/', 'blocked_address'],
  ['https://0x0a000001/', 'blocked_address'],
  ['https://10.1/', 'blocked_address'], // 10.0.0.1
  ['https://172.16.0.1/', 'blocked_address'],
  ['https://192.168.257/', 'blocked_address'], // 192.168.1.1
  ['https://100.64.0.1/', 'blocked_address'],
  ['https://[fd00::1]/', 'blocked_address'], // unique local
  ['https://[FC00::1]/', 'blocked_address'],
  // link-local and cloud metadata
  ['https://169.254.169.254/latest/meta-data/', 'blocked_address'],
  ['https://2852039166/', 'blocked_address'], // decimal 169.254.169.254
  ['https://0xA9.0xFE.0xA9.0xFE/', 'blocked_address'], // hex
  ['https://0251.0376.0251.0376/', 'blocked_address'], // octal
  ['https://[fe80::1]/', 'blocked_address'],
  ['https://[FE80::A9FE:A9FE]/', 'blocked_address'],
  // mapped, compatible, NAT64, 6to4, Teredo: refused whatever IPv4 address they carry (public ones too)
  ['https://[::ffff:127.0.0.1]/', 'blocked_address'],
  ['https://[::FFFF:7F00:1]/', 'blocked_address'],
  ['https://[0:0:0:0:0:ffff:127.0.0.1]/', 'blocked_address'],
  ['https://[::ffff:a9fe:a9fe]/', 'blocked_address'],
  ['https://[::ffff:8.8.8.8]/', 'blocked_address'],
  ['https://[::127.0.0.1]/', 'blocked_address'],
  ['https://[::8.8.8.8]/', 'blocked_address'],
  ['https://[64:ff9b::7f00:1]/', 'blocked_address'],
  ['https://[64:FF9B::808:808]/', 'blocked_address'],
  ['https://[64:ff9b:1::a00:1]/', 'blocked_address'],
  ['https://[2002:7f00:1::]/', 'blocked_address'],
  ['https://[2002:808:808::1]/', 'blocked_address'],
  ['https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/', 'blocked_address'], // Teredo
  // other non-unicast and special-purpose
  ['https://0/', 'blocked_address'], // 0.0.0.0
  ['https://0.0.0.0/', 'blocked_address'],
  ['https://[::]/', 'blocked_address'],
  ['https://224.0.0.1/', 'blocked_address'],
  ['https://[ff02::1]/', 'blocked_address'],
  ['https://255.255.255.255/', 'blocked_address'],
  ['https://240.0.0.1/', 'blocked_address'],
  ['https://192.0.2.1/', 'blocked_address'],
  ['https://[2001:db8::1]/', 'blocked_address'],
  ['https://198.18.0.1/', 'blocked_address'],
  ['https://[100::1]/', 'blocked_address'], // discard-only
  // scheme, credentials, garbage
  ['http://hooks.example.com/', 'scheme_not_allowed'],
  ['HTTP://HOOKS.EXAMPLE.COM/', 'scheme_not_allowed'],
  ['ftp://hooks.example.com/', 'scheme_not_allowed'],
  ['https://user:pass@hooks.example.com/', 'userinfo_not_allowed'],
  ['https://[fe80::1%25eth0]/', 'invalid_url'],
  ['not a url', 'invalid_url'],
];
