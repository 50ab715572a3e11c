//! The block store's namespace: uploads, files, block locations.

use super::*;

impl Core {
    /// Check that `name` may be created.
    pub fn check_new_file(&self, name: &str) -> Result<(), ApiError> {
        if !crate::jobfile::valid_name(name) {
            return Err(ApiError::bad(format!(
                "`{name}` is not a valid file name (1-200 characters, no `/` or control characters)"
            )));
        }
        if self.formed.is_none() {
            return Err(ApiError::unavailable(format!(
                "the cluster has not formed yet ({} of {} workers registered)",
                self.regs.len(),
                self.b.settings.workers
            )));
        }
        if self.b.files.contains_key(name) {
            return Err(ApiError::conflict(format!(
                "`{name}` already exists (remove it with `mrsched dfs rm {name}`)"
            )));
        }
        Ok(())
    }

    /// A new block id and its replica holders `(node, URL)`.
    pub fn new_block(&mut self, replication: u32) -> Result<(u64, Vec<(u32, String)>), ApiError> {
        let f = self.formed.as_ref().ok_or_else(not_formed)?;
        let reps = self.b.place(&f.st, None, replication.max(1));
        if reps.is_empty() {
            return Err(ApiError::unavailable("no live worker to store blocks on"));
        }
        let id = self.b.new_block();
        Ok((
            id,
            reps.into_iter()
                .map(|r| (r, self.b.nodes[r as usize].addr.clone()))
                .collect(),
        ))
    }

    /// Commit an uploaded file; its replication is the most replicas any
    /// block got.
    pub fn commit_file(
        &mut self,
        user: &User,
        name: &str,
        blocks: Vec<BlockMeta>,
    ) -> Result<(), ApiError> {
        let r = blocks.iter().map(|b| b.replicas.len() as u32).max();
        self.commit_file_replicated(user, name, blocks, r.unwrap_or(1))
    }

    /// Commit an uploaded file whose blocks should have `replication`
    /// replicas each, at most one per worker of the cluster
    /// (re-replication restores them).
    pub fn commit_file_replicated(
        &mut self,
        user: &User,
        name: &str,
        blocks: Vec<BlockMeta>,
        replication: u32,
    ) -> Result<(), ApiError> {
        self.check_new_file(name)?;
        // More replicas than the cluster has workers can never be made.
        let replication = replication.clamp(1, self.b.nodes.len().max(1) as u32);
        self.journal.push(Record::File {
            name: name.to_string(),
            owner: user.name.clone(),
            blocks: blocks
                .iter()
                .map(|b| (b.id, b.bytes, b.replicas.clone()))
                .collect(),
            replication,
        });
        self.commit()?;
        self.b.files.insert(
            name.to_string(),
            FileMeta {
                owner: user.name.clone(),
                blocks,
                dataset: None,
                writer: None,
                replication,
            },
        );
        self.b.repl.dirty = true;
        Ok(())
    }

    /// Forget blocks of an abandoned upload.
    pub fn drop_blocks(&mut self, blocks: &[BlockMeta]) {
        for b in blocks {
            for &r in &b.replicas {
                if let Some(o) = self.b.out.get_mut(r as usize) {
                    o.delete_blocks.push(b.id);
                }
            }
        }
    }

    /// A file's view.
    pub fn file_view(&self, name: &str) -> Result<FileView, ApiError> {
        let fm = self.b.files.get(name).ok_or_else(|| {
            ApiError::not_found(format!("no file `{name}` (see `mrsched dfs ls`)"))
        })?;
        if let Some(j) = fm.writer {
            return Err(ApiError::conflict(format!(
                "`{name}` is being written by job {j}"
            )));
        }
        let live = fm
            .blocks
            .iter()
            .map(|b| self.live_holders(&b.replicas).len() as u32)
            .collect();
        Ok(FileView {
            live,
            replication: fm.replication,
            name: name.to_string(),
            bytes: fm.blocks.iter().map(|b| b.bytes).sum(),
            blocks: fm
                .blocks
                .iter()
                .map(|b| {
                    (
                        b.id,
                        b.bytes,
                        b.replicas
                            .iter()
                            .filter_map(|&r| self.b.nodes.get(r as usize).map(|n| n.name.clone()))
                            .collect(),
                    )
                })
                .collect(),
        })
    }

    /// Every committed file.
    pub fn files(&self) -> Vec<FileView> {
        self.b
            .files
            .iter()
            .filter(|(_, f)| f.writer.is_none())
            .filter_map(|(n, _)| self.file_view(n).ok())
            .collect()
    }

    /// URLs of live holders of block `id`, best first.
    pub fn block_sources(&self, id: u64) -> Result<Vec<String>, ApiError> {
        let f = self.formed.as_ref().ok_or_else(not_formed)?;
        let b = self
            .b
            .files
            .values()
            .flat_map(|f| f.blocks.iter())
            .find(|b| b.id == id)
            .ok_or_else(|| ApiError::not_found(format!("no block {id}")))?;
        let mut v: Vec<(bool, String)> = b
            .replicas
            .iter()
            .filter_map(|&r| {
                self.b
                    .nodes
                    .get(r as usize)
                    .map(|n| (!f.st.slots(NodeId(r)).alive, n.addr.clone()))
            })
            .collect();
        v.sort();
        Ok(v.into_iter()
            .map(|x| x.1)
            .filter(|a| !a.is_empty())
            .collect())
    }

    /// Remove a file.
    pub fn remove_file(&mut self, user: &User, name: &str) -> Result<(), ApiError> {
        let f = self.formed.as_ref().ok_or_else(not_formed)?;
        let fm = self.b.files.get(name).ok_or_else(|| {
            ApiError::not_found(format!("no file `{name}` (see `mrsched dfs ls`)"))
        })?;
        if fm.owner != user.name && !user.admin {
            return Err(ApiError::forbidden(format!(
                "`{name}` belongs to `{}`; `{}` may not remove it",
                fm.owner, user.name
            )));
        }
        if let Some(j) = fm.writer {
            return Err(ApiError::conflict(format!(
                "`{name}` is being written by job {j}"
            )));
        }
        if let Some(d) = fm.dataset {
            if let Some(&j) = f.st.scanners(d).first() {
                return Err(ApiError::conflict(format!(
                    "`{name}` is read by running job {}",
                    j.0
                )));
            }
        }
        let blocks = fm.blocks.clone();
        self.journal.push(Record::FileRemoved {
            name: name.to_string(),
        });
        self.commit()?;
        self.b.files.remove(name);
        self.drop_blocks(&blocks);
        Ok(())
    }
}
