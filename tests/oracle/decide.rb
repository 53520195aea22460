# Oracle driver for Ruby: JSON lines {no_proxy, url} on stdin, "direct",
# "proxy" or "refused" (URI rejects the URL) per line on stdout.
#   find_proxy  URI::Generic#find_proxy (the default)
#   net_http    Net::HTTP.new(host, port).proxy?, which reads the environment
#               through URI::HTTP#find_proxy with scheme http
# Runs in a network namespace without any network (tests/oracle/mod.rs), so
# the name resolution find_proxy performs fails locally: only the name rules,
# /etc/hosts and the addresses of IP-literal hosts take part, as in our model.
require 'json'
require 'net/http'
require 'uri'

mode = ARGV[0] || 'find_proxy'
$stdout.sync = true
STDIN.each_line do |line|
  c = JSON.parse(line)
  env = { 'http_proxy' => 'http://127.0.0.1:9', 'https_proxy' => 'http://127.0.0.1:9', 'no_proxy' => c['no_proxy'] }
  begin
    uri = URI(c['url'])
  rescue URI::InvalidURIError
    puts 'refused'
    next
  end
  if mode == 'net_http'
    ENV.delete_if { |k, _| k.downcase.end_with?('_proxy') }
    ENV.update(env)
    puts(Net::HTTP.new(uri.hostname, uri.port).proxy? ? 'proxy' : 'direct')
  else
    puts(uri.find_proxy(env).nil? ? 'direct' : 'proxy')
  end
end
