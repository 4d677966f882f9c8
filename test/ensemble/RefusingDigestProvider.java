// SPDX-License-Identifier: Apache-2.0
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.server.ServerCnxn;
import org.apache.zookeeper.server.auth.DigestAuthenticationProvider;

/* Test ensemble only: the digest scheme as usual, except that credentials
 * of the user "refused" are rejected, so that clients meet AUTH_FAILED. */
public class RefusingDigestProvider extends DigestAuthenticationProvider {
    @Override
    public KeeperException.Code handleAuthentication(ServerCnxn cnxn, byte[] authData) {
        String id = new String(authData, java.nio.charset.StandardCharsets.UTF_8);
        if (id.startsWith("refused:")) return KeeperException.Code.AUTHFAILED;
        return super.handleAuthentication(cnxn, authData);
    }
}
