# Oracle driver for Ruby's URI::Generic#find_proxy: JSON lines
# {no_proxy, url} on stdin, "direct" or "proxy" per line on stdout.
# Runs in a network namespace without any network (tests/oracle/mod.rs), so
# the name resolution find_proxy performs fails locally: only the name rules
# and the addresses of IP-literal hosts take part, as in our model.
require 'json'
require 'uri'

$stdout.sync = true
STDIN.each_line do |line|
  c = JSON.parse(line)
  env = { 'http_proxy' => 'http://127.0.0.1:9', 'https_proxy' => 'http://127.0.0.1:9', 'no_proxy' => c['no_proxy'] }
  puts(URI(c['url']).find_proxy(env).nil? ? 'direct' : 'proxy')
end
