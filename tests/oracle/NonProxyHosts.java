// Oracle driver for OpenJDK's DefaultProxySelector: JSON-free input, one case
// per line as "<http.nonProxyHosts>\t<url>"; prints "direct", "proxy" or
// "refused" (java.net.URI or the selector rejects the URL).
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.Proxy;
import java.net.ProxySelector;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.List;

public class NonProxyHosts {
    public static void main(String[] args) throws Exception {
        System.setProperty("http.proxyHost", "127.0.0.1");
        System.setProperty("http.proxyPort", "9");
        System.setProperty("https.proxyHost", "127.0.0.1");
        System.setProperty("https.proxyPort", "9");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
        String line;
        while ((line = in.readLine()) != null) {
            int tab = line.lastIndexOf('\t'); // URLs hold no tab; settings may
            System.setProperty("http.nonProxyHosts", line.substring(0, tab));
            List<Proxy> proxies;
            try {
                proxies = ProxySelector.getDefault().select(new URI(line.substring(tab + 1)));
            } catch (URISyntaxException | IllegalArgumentException e) {
                System.out.println("refused");
                continue;
            }
            boolean direct = proxies.size() == 1 && proxies.get(0).type() == Proxy.Type.DIRECT;
            System.out.println(direct ? "direct" : "proxy");
        }
    }
}
