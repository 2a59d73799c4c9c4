//go:build !windows

package fileowner

import (
	"os"
	"os/user"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A file this process creates is owned by its user and, here, its primary group.
func TestNames(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.log")
	require.NoError(t, os.WriteFile(path, nil, 0o600))
	info, err := os.Stat(path)
	require.NoError(t, err)
	me, err := user.Current()
	require.NoError(t, err)
	group, err := user.LookupGroupId(me.Gid)
	require.NoError(t, err)

	owner, grp, err := Names(info, true, true)
	require.NoError(t, err)
	assert.Equal(t, me.Username, owner)
	assert.Equal(t, group.Name, grp)

	owner, grp, err = Names(info, false, true)
	require.NoError(t, err)
	assert.Empty(t, owner, "only what is asked for")
	assert.Equal(t, group.Name, grp)
}
